// The SSH profile's fields (AgentProfile::viaSsh and the ssh* fields; docs/contracts.md "Unix
// socket"): validated (host required, nothing ssh would read as an option, the remote socket
// absolute, the remote address host:port), kept in the settings, entered in the ProfileDialog;
// SshTunnel's ssh command line; the sshProgram setting; a missing ssh program fails the tunnel
// with the reason and a connection that can be retried.
#include "console/app/ProfileDialog.h"
#include "console/connection/AgentConnection.h"
#include "console/connection/SshTunnel.h"
#include "console/core/ConsoleSettings.h"
#include "console/core/ProfileStore.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace runbox::console;

namespace {

AgentProfile sshProfile() {
    AgentProfile p;
    p.id = AgentProfile::newId();
    p.name = QStringLiteral("node3");
    p.viaSsh = true;
    p.sshHost = QStringLiteral("node3.example");
    return p;
}

template <typename T> T* child(QWidget* parent, const char* name) {
    T* w = parent->findChild<T*>(QLatin1String(name));
    if (!w)
        qFatal("no child %s", name);
    return w;
}

} // namespace

class TestSshProfile final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testValidation() {
        AgentProfile p = sshProfile();
        QCOMPARE(p.validationError(), QString()); // positive control: the default socket
        QCOMPARE(p.sshRemoteOrDefault(), QStringLiteral("/run/runbox/agent.sock"));
        QVERIFY(p.sshRemoteIsSocket());
        p.sshRemote = QStringLiteral("127.0.0.1:4311");
        QCOMPARE(p.validationError(), QString());
        QVERIFY(!p.sshRemoteIsSocket());

        AgentProfile bad = p;
        bad.sshHost.clear();
        QVERIFY(bad.validationError().contains(QLatin1String("host")));
        for (const char* host : {"-oProxyCommand=evil", "a b", "user@host", "host:22"}) {
            bad = p;
            bad.sshHost = QLatin1String(host);
            QVERIFY2(!bad.validationError().isEmpty(), host);
        }
        bad = p;
        bad.sshUser = QStringLiteral("-l");
        QVERIFY(!bad.validationError().isEmpty());
        for (const char* remote : {"run/agent.sock", "agent.sock", "./agent.sock"}) {
            bad = p;
            bad.sshRemote = QLatin1String(remote);
            QVERIFY2(bad.validationError().contains(QLatin1String("absolute")), remote);
        }
        for (const char* remote : {"127.0.0.1:99999", "127.0.0.1:", "-x:4311"}) {
            bad = p;
            bad.sshRemote = QLatin1String(remote);
            QVERIFY2(bad.validationError().contains(QLatin1String("host:port")), remote);
        }
        bad = p;
        bad.fingerprint = QStringLiteral("AB:CD");
        QVERIFY(!bad.validationError().isEmpty());
        bad = p;
        bad.sshPort = 70000;
        QVERIFY(!bad.validationError().isEmpty());
        // Without SSH the URL is what counts again.
        bad = p;
        bad.viaSsh = false;
        QVERIFY(!bad.validationError().isEmpty());
    }

    void testDisplayNameAndAddress() {
        AgentProfile p = sshProfile();
        p.sshUser = QStringLiteral("ops");
        p.sshPort = 2222;
        QCOMPARE(p.hostAndPort(),
                 QStringLiteral("ssh ops@node3.example:2222 \u2192 /run/runbox/agent.sock"));
        AgentProfile q = p;
        QVERIFY(p.sameAddress(q));
        q.sshRemote = QStringLiteral("127.0.0.1:4311");
        QVERIFY(!p.sameAddress(q));
        q = p;
        q.viaSsh = false;
        QVERIFY(!p.sameAddress(q));
    }

    void testTunnelArguments() {
        AgentProfile p = sshProfile();
        p.sshUser = QStringLiteral("ops");
        p.sshPort = 2222;
        SshTunnel t(p, QString());
        QCOMPARE(t.arguments(40001),
                 (QStringList{"-N", "-o", "BatchMode=yes", "-o", "ExitOnForwardFailure=yes", "-L",
                              "127.0.0.1:40001:/run/runbox/agent.sock", "-l", "ops", "-p", "2222",
                              "--", "node3.example"}));
        p.sshUser.clear();
        p.sshPort = 0;
        p.sshRemote = QStringLiteral("127.0.0.1:4311");
        QCOMPARE(SshTunnel(p, QString()).arguments(40002),
                 (QStringList{"-N", "-o", "BatchMode=yes", "-o", "ExitOnForwardFailure=yes", "-L",
                              "127.0.0.1:40002:127.0.0.1:4311", "--", "node3.example"}));
    }

    void testSettingsKeepTheSshFields() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("c.ini"));
        AgentProfile p = sshProfile();
        p.sshUser = QStringLiteral("ops");
        p.sshPort = 2222;
        p.sshRemote = QStringLiteral("127.0.0.1:4311");
        AgentProfile plain{AgentProfile::newId(), QStringLiteral("plain"),
                           QUrl(QStringLiteral("http://10.0.0.3:4311"))};
        {
            ConsoleSettings s(path);
            QCOMPARE(s.value(ConsoleSettings::Key::SshProgram).toString(), QStringLiteral("ssh"));
            ProfileStore store(s.fleetPath());
            QList<AgentProfile> none;
            QCOMPARE(store.load(&none), QString());
            QCOMPARE(store.save({p, plain}), QString());
            s.setValue(ConsoleSettings::Key::SshProgram, QStringLiteral("/opt/bin/my-ssh"));
            s.sync();
        }
        ConsoleSettings s(path);
        ProfileStore store(s.fleetPath());
        QList<AgentProfile> read;
        QCOMPARE(store.load(&read), QString());
        QCOMPARE(read, (QList<AgentProfile>{p, plain}));
        QCOMPARE(s.value(ConsoleSettings::Key::SshProgram).toString(),
                 QStringLiteral("/opt/bin/my-ssh"));
    }

    void testDialogEntersAnSshProfile() {
        ProfileDialog d(ProfileDialog::Mode::Add, {}, {});
        d.show();
        QPushButton* ok = d.findChild<QPushButton*>();
        for (QPushButton* b : d.findChildren<QPushButton*>())
            if (b->text() == ProfileDialog::tr("Connect"))
                ok = b;
        child<QLineEdit>(&d, "tokenEdit")->setText(QStringLiteral("abc123"));
        child<QLineEdit>(&d, "nameEdit")->setText(QStringLiteral("node3"));
        auto* host = child<QLineEdit>(&d, "sshHostEdit");
        QVERIFY(!host->isEnabled());
        child<QCheckBox>(&d, "viaSshCheck")->setChecked(true);
        QVERIFY(host->isEnabled());
        QVERIFY(!ok->isEnabled()); // no host yet
        host->setText(QStringLiteral("node3.example"));
        QVERIFY(ok->isEnabled()); // the default socket
        QCOMPARE(d.profile().sshRemote, QStringLiteral("/run/runbox/agent.sock"));
        auto* remote = child<QLineEdit>(&d, "sshRemoteEdit");
        remote->setText(QStringLiteral("run/agent.sock"));
        QVERIFY(!ok->isEnabled()); // relative socket
        child<QComboBox>(&d, "remoteKindCombo")->setCurrentIndex(1);
        remote->clear();
        QVERIFY(ok->isEnabled());
        QCOMPARE(d.profile().sshRemote, QStringLiteral("127.0.0.1:4311"));
        remote->setText(QStringLiteral("/run/runbox/agent.sock"));
        QVERIFY(!ok->isEnabled()); // a path where an address belongs
        remote->setText(QStringLiteral("10.1.2.3:4400"));
        child<QSpinBox>(&d, "sshPortSpin")->setValue(2222);
        child<QLineEdit>(&d, "sshUserEdit")->setText(QStringLiteral("ops"));
        QVERIFY(ok->isEnabled());
        const AgentProfile p = d.profile();
        QVERIFY(p.viaSsh);
        QCOMPARE(p.sshHost, QStringLiteral("node3.example"));
        QCOMPARE(p.sshUser, QStringLiteral("ops"));
        QCOMPARE(p.sshPort, 2222);
        QCOMPARE(p.sshRemote, QStringLiteral("10.1.2.3:4400"));

        // Editing shows the stored fields again.
        ProfileDialog e(ProfileDialog::Mode::Edit, p, {});
        QVERIFY(child<QCheckBox>(&e, "viaSshCheck")->isChecked());
        QCOMPARE(child<QComboBox>(&e, "remoteKindCombo")->currentIndex(), 1);
        QCOMPARE(e.profile(), p);
    }

    /// An ssh that cannot be run is not retried on its own: the operator's Connect tries again.
    void testMissingSshProgramFailsUntilConnect() {
        AgentConnection c(sshProfile(), QByteArray(64, 'a'), nullptr,
                          QStringLiteral("/nonexistent/runbox-no-ssh"));
        c.open();
        QTRY_COMPARE_WITH_TIMEOUT(c.state(), AgentConnection::State::SshRefused, 10000);
        QVERIFY(c.tunnel()->failedForGood());
        QVERIFY2(c.lastError().contains(QLatin1String("/nonexistent/runbox-no-ssh")),
                 qPrintable(c.lastError()));
        QCOMPARE(c.tunnel()->state(), SshTunnel::State::Failed);
        c.close();
        QCOMPARE(c.state(), AgentConnection::State::Disconnected);
        QCOMPARE(c.tunnel()->state(), SshTunnel::State::Stopped);
    }

    /// ssh's words for failures a retry cannot mend, and some it can (OpenSSH 9.2's messages).
    void testWhichSshFailuresAreForGood_data() {
        QTest::addColumn<QString>("stderr");
        QTest::addColumn<bool>("forGood");
        QTest::newRow("key refused") << "ops@127.0.0.1: Permission denied (publickey)." << true;
        QTest::newRow("host key") << "Host key verification failed." << true;
        QTest::newRow("changed host key")
            << "@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @" << true;
        QTest::newRow("bad config") << "/home/ops/.ssh/config: line 3: Bad configuration option: "
                                       "frobnicate\n/home/ops/.ssh/config: terminating, 1 bad "
                                       "configuration options"
                                    << true;
        QTest::newRow("too many") << "Received disconnect from 10.0.0.3 port 22:2: Too many "
                                     "authentication failures"
                                  << true;
        QTest::newRow("refused port")
            << "ssh: connect to host 10.0.0.3 port 22: Connection refused" << false;
        QTest::newRow("timeout") << "ssh: connect to host 10.0.0.3 port 22: Connection timed out"
                                 << false;
        QTest::newRow("reset") << "kex_exchange_identification: read: Connection reset by peer"
                               << false;
        QTest::newRow("forward") << "channel 2: open failed: connect failed: No such file" << false;
    }

    void testWhichSshFailuresAreForGood() {
        QFETCH(QString, stderr);
        QFETCH(bool, forGood);
        QCOMPARE(SshTunnel::isPermanentFailure(stderr), forGood);
    }
};

QTEST_MAIN(TestSshProfile)
#include "test_ssh_profile.moc"
