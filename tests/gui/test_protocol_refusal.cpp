// An agent of another protocol is refused by the console and the CLI before anything but
// `GET /health` reaches it, with a message naming both versions (shared/ProtocolVersion.h,
// docs/contracts.md "API conventions"). The peer is a scripted HTTP server that says, in
// /health, the protocol a test gives it; a peer that says ours is the positive control.
#include "console/connection/AgentConnection.h"
#include "shared/ProtocolVersion.h"

#include <QJsonDocument>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

using namespace runbox;
using namespace runbox::console;

namespace {

// Answers each request with one JSON body and closes; records "METHOD target" of each.
class VersionedPeer final : public QObject {
public:
    explicit VersionedPeer(const QJsonObject& publicHealth) : m_publicHealth(publicHealth) {
        server.listen(QHostAddress::LocalHost);
        connect(&server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* s = server.nextPendingConnection())
                connect(s, &QTcpSocket::readyRead, this, [this, s] { onData(s); });
        });
    }
    QUrl url() const {
        return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.serverPort()));
    }
    QTcpServer server;
    QStringList requests;

private:
    void onData(QTcpSocket* s) {
        m_buffers[s] += s->readAll();
        const QByteArray& buf = m_buffers[s];
        if (!buf.contains("\r\n\r\n"))
            return;
        const QList<QByteArray> first = buf.left(buf.indexOf("\r\n")).split(' ');
        const QString key = QString::fromLatin1(first.value(0) + ' ' + first.value(1));
        requests << key;
        m_buffers.remove(s);
        QJsonObject body = m_publicHealth;
        if (key == QLatin1String("GET /v1/health"))
            body.insert("sandbox", QJsonObject{{"usable", true}});
        const QByteArray json = QJsonDocument(body).toJson(QJsonDocument::Compact);
        s->write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                 QByteArray::number(json.size()) + "\r\nConnection: close\r\n\r\n" + json);
        s->disconnectFromHost();
    }
    QJsonObject m_publicHealth;
    QHash<QTcpSocket*, QByteArray> m_buffers;
};

QJsonObject healthSaying(const QJsonValue& protocol) {
    QJsonObject o{{"status", "ok"}, {"version", "9.1.0"}};
    if (!protocol.isUndefined())
        o.insert("protocol", protocol);
    return o;
}

struct CliRun {
    int exitCode = -1;
    QString stderrText;
};

// Runs this build's CLI against @p url without blocking the event loop the peer answers on.
CliRun runCli(const QUrl& url, const QStringList& args) {
    QProcess cli;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("RUNBOX_URL", url.toString());
    env.insert("RUNBOX_TOKEN", QString(64, QLatin1Char('a')));
    cli.setProcessEnvironment(env);
    QSignalSpy finished(&cli, &QProcess::finished);
    cli.start(QStringLiteral(RUNBOX_BINARY_DIR "/cli/runbox"), args);
    if (!finished.wait(20000))
        return {};
    return {cli.exitCode(), QString::fromUtf8(cli.readAllStandardError())};
}

} // namespace

class TestProtocolRefusal final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void mismatchNamesBothVersions_data() {
        QTest::addColumn<QJsonObject>("health");
        QTest::addColumn<bool>("refused");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("ours") << healthSaying(protocol::kVersion) << false << QString();
        QTest::newRow("newer") << healthSaying(protocol::kVersion + 1) << true
                               << QStringLiteral("upgrade this runbox");
        QTest::newRow("older") << healthSaying(0) << true << QStringLiteral("upgrade the agent");
        QTest::newRow("missing") << healthSaying(QJsonValue::Undefined) << true
                                 << QStringLiteral("names no protocol");
        QTest::newRow("string") << healthSaying(QStringLiteral("1")) << true
                                << QStringLiteral("names no protocol");
        QTest::newRow("fraction") << healthSaying(1.5) << true
                                  << QStringLiteral("names no protocol");
    }
    void mismatchNamesBothVersions() {
        QFETCH(QJsonObject, health);
        QFETCH(bool, refused);
        QFETCH(QString, mentions);
        const QString m = protocol::mismatch(health, "http://h:1", "runbox");
        QCOMPARE(!m.isEmpty(), refused);
        if (!refused)
            return;
        QVERIFY2(m.contains(mentions), qPrintable(m));
        QVERIFY2(m.contains(QStringLiteral("protocol %1").arg(protocol::kVersion)), qPrintable(m));
        QVERIFY2(m.contains(QStringLiteral(RUNBOX_VERSION)), qPrintable(m));
        QVERIFY2(m.contains(QStringLiteral("http://h:1")), qPrintable(m));
        if (health.value("protocol").isDouble() && mentions != QLatin1String("names no protocol")) {
            QVERIFY2(
                m.contains(QStringLiteral("protocol %1").arg(health.value("protocol").toInt())),
                qPrintable(m));
            QVERIFY2(m.contains(QStringLiteral("runbox-agent 9.1.0")), qPrintable(m));
        }
    }

    // Positive control: a peer of our protocol gets the CLI's real request after /health.
    void cliTalksToItsOwnProtocol() {
        VersionedPeer peer(healthSaying(protocol::kVersion));
        const CliRun run = runCli(peer.url(), {"health"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(peer.requests, (QStringList{"GET /health", "GET /v1/health"}));
    }

    void cliRefusesAnotherProtocol() {
        VersionedPeer peer(healthSaying(protocol::kVersion + 1));
        const CliRun run = runCli(peer.url(), {"exec", "--code", "echo hi"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.stderrText.contains(QStringLiteral("speaks protocol %1 (runbox-agent 9.1.0)")
                                             .arg(protocol::kVersion + 1)),
                 qPrintable(run.stderrText));
        QVERIFY2(run.stderrText.contains(
                     QStringLiteral("this runbox speaks protocol %1").arg(protocol::kVersion)),
                 qPrintable(run.stderrText));
        QCOMPARE(peer.requests, QStringList{"GET /health"});
    }

    // An unknown command is a usage error (exit 2) whatever the agent: not even /health is sent.
    void cliUnknownCommandSendsNothing() {
        VersionedPeer peer(healthSaying(protocol::kVersion + 1));
        // Positive control: a known command reaches the peer (and is refused by its protocol).
        QCOMPARE(runCli(peer.url(), {"workspaces"}).exitCode, 1);
        QCOMPARE(peer.requests, QStringList{"GET /health"});
        const CliRun run = runCli(peer.url(), {"frobnicate", "--json"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.stderrText.contains(QStringLiteral("unknown command frobnicate")),
                 qPrintable(run.stderrText));
        QCOMPARE(peer.requests, QStringList{"GET /health"});
    }

    void consoleConnectsToItsOwnProtocol() {
        VersionedPeer peer(healthSaying(protocol::kVersion));
        AgentConnection c({AgentProfile::newId(), QStringLiteral("same"), peer.url()},
                          QByteArray(64, 'a'));
        c.open();
        QTRY_COMPARE_WITH_TIMEOUT(c.state(), AgentConnection::State::Connected, 10000);
        QCOMPARE(peer.requests.mid(0, 2), (QStringList{"GET /health", "GET /v1/health"}));
    }

    void consoleRefusesAnotherProtocol() {
        VersionedPeer peer(healthSaying(protocol::kVersion + 1));
        AgentConnection c({AgentProfile::newId(), QStringLiteral("newer"), peer.url()},
                          QByteArray(64, 'a'));
        c.open();
        QTRY_COMPARE_WITH_TIMEOUT(c.state(), AgentConnection::State::Incompatible, 10000);
        QVERIFY2(
            c.lastError().contains(
                QStringLiteral("this runbox-console speaks protocol %1").arg(protocol::kVersion)),
            qPrintable(c.lastError()));
        QCOMPARE(c.stateText(), QStringLiteral("Incompatible agent"));
        // Nothing retries and nothing else is sent.
        QTest::qWait(1500);
        QCOMPARE(peer.requests, QStringList{"GET /health"});
        QCOMPARE(c.state(), AgentConnection::State::Incompatible);
    }
};

QTEST_MAIN(TestProtocolRefusal)
#include "test_protocol_refusal.moc"
