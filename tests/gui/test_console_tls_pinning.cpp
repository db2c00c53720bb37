// The console against an https:// agent (docs/contracts.md "TLS and pinning"): a profile with
// the agent's fingerprint connects (positive control); without a pin the self-signed
// certificate stops the connection at CertificateRefused with the fingerprint to compare; a
// wrong (or outdated) pin stops it naming both fingerprints; the pin is kept in the profile.
#include "console/connection/AgentConnection.h"
#include "console/core/ConsoleSettings.h"
#include "console/core/ProfileStore.h"
#include "shared/FleetFile.h"
#include "shared/TlsPin.h"
#include "support/AgentProcess.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace runbox;
using namespace runbox::console;
using namespace runbox::testsupport;

namespace {

AgentProfile profileFor(const QUrl& url, const QString& fingerprint) {
    AgentProfile p;
    p.id = AgentProfile::newId();
    p.name = QStringLiteral("tls-agent");
    p.url = url;
    p.fingerprint = fingerprint;
    return p;
}

} // namespace

class TestConsoleTlsPinning final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        AgentOptions options;
        options.tls = true;
        QVERIFY2(m_agent.start(options), qPrintable(m_agent.errorString()));
        QProcess print;
        print.start(QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-agent"),
                    {"--print-fingerprint", "--state-dir", m_agent.stateDir()});
        QVERIFY(print.waitForFinished(30000));
        m_fingerprint = QString::fromLatin1(print.readAllStandardOutput()).trimmed();
        QVERIFY2(tls::parseFingerprint(m_fingerprint), qPrintable(m_fingerprint));
    }

    void testPinnedProfileConnects() {
        AgentConnection c(profileFor(m_agent.tlsUrl(), m_fingerprint), m_agent.token());
        c.open();
        QTRY_COMPARE_WITH_TIMEOUT(c.state(), AgentConnection::State::Connected, 20000);
        QCOMPARE(c.health()
                     .value(QLatin1String("listeners"))
                     .toObject()
                     .value(QLatin1String("tls"))
                     .toObject()
                     .value(QLatin1String("fingerprint"))
                     .toString(),
                 m_fingerprint);
    }

    void testUnpinnedSelfSignedAgentIsRefusedWithItsFingerprint() {
        AgentConnection c(profileFor(m_agent.tlsUrl(), {}), m_agent.token());
        c.open();
        QTRY_COMPARE_WITH_TIMEOUT(c.state(), AgentConnection::State::CertificateRefused, 20000);
        QCOMPARE(tls::formatFingerprint(c.presentedSha256()), m_fingerprint);
        QVERIFY2(c.lastError().contains(m_fingerprint), qPrintable(c.lastError()));
        QVERIFY2(c.lastError().contains(QLatin1String("--print-fingerprint")),
                 qPrintable(c.lastError()));
        QTest::qWait(1500); // stopped: no reconnect loop
        QCOMPARE(c.state(), AgentConnection::State::CertificateRefused);
    }

    void testWrongPinIsRefusedNamingBoth() {
        QByteArray wrong = *tls::parseFingerprint(m_fingerprint);
        wrong[0] = char(wrong[0] ^ 0x42);
        const QString wrongText = tls::formatFingerprint(wrong);
        AgentConnection c(profileFor(m_agent.tlsUrl(), wrongText), m_agent.token());
        c.open();
        QTRY_COMPARE_WITH_TIMEOUT(c.state(), AgentConnection::State::CertificateRefused, 20000);
        QVERIFY2(c.lastError().contains(QLatin1String("expected ") + wrongText) &&
                     c.lastError().contains(QLatin1String("presented ") + m_fingerprint),
                 qPrintable(c.lastError()));
    }

    void testProfileKeepsItsPin() {
        QCOMPARE(profileFor(m_agent.tlsUrl(), m_fingerprint).validationError(), QString());
        QVERIFY(!profileFor(m_agent.baseUrl(), m_fingerprint).validationError().isEmpty());
        QVERIFY(!profileFor(m_agent.tlsUrl(), QStringLiteral("AB:CD")).validationError().isEmpty());
        QTemporaryDir dir;
        const AgentProfile p = profileFor(m_agent.tlsUrl(), m_fingerprint);
        AgentProfile plain = profileFor(m_agent.baseUrl(), {});
        plain.name = QStringLiteral("plain-agent");
        {
            ProfileStore store(dir.filePath(QStringLiteral("fleet.json")));
            QList<AgentProfile> none;
            QCOMPARE(store.load(&none), QString());
            QCOMPARE(store.save({p, plain}), QString());
        }
        // The pin is the fleet file's, as the CLI reads it.
        FleetFile fleet;
        QCOMPARE(fleet.load(dir.filePath(QStringLiteral("fleet.json"))), QString());
        QCOMPARE(fleet.agents().first().pin, p.pinnedSha256());
        ProfileStore store(dir.filePath(QStringLiteral("fleet.json")));
        QList<AgentProfile> read;
        QCOMPARE(store.load(&read), QString());
        QCOMPARE(read.size(), 2);
        QCOMPARE(read[0], p);
        QCOMPARE(read[1].fingerprint, QString());
    }

private:
    AgentProcess m_agent;
    QString m_fingerprint;
};

QTEST_MAIN(TestConsoleTlsPinning)
#include "test_console_tls_pinning.moc"
