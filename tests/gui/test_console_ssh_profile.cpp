// The console's SSH profile (docs/contracts.md "Unix socket"; console/README.md) against a real
// OpenSSH server and a real runbox-agent listening on a unix socket: a profile whose remote end
// is the agent's socket connects through the operator's ssh (the wrapper a setting names), the
// overview shows the agent and a run works through the tunnel (positive control); a profile whose
// remote end is the agent's TCP port works too; a key sshd does not know and a host key that is
// not the known one are refused with ssh's words and never connect; closing the connection (or
// destroying it, as quitting does) leaves no ssh; a killed ssh makes the connection lost and the
// reconnect starts a new tunnel.
#include "SshServerFixture.h"

#include "console/app/MainWindow.h"
#include "console/connection/AgentConnection.h"
#include "console/connection/ConnectionManager.h"
#include "console/connection/ExecutionFollower.h"
#include "console/connection/ExecutionLauncher.h"
#include "console/connection/TokenVault.h"
#include "console/core/ConsoleSettings.h"
#include "console/pages/OverviewPage.h"
#include "console/widgets/HostBanner.h"
#include "support/AgentProcess.h"

#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <csignal>
#include <sys/stat.h>

using namespace runbox;
using namespace runbox::console;
using namespace runbox::testsupport;

namespace {

// Whether @p pid is a live process (a zombie counts as gone).
bool processAlive(qint64 pid) {
    if (pid <= 0 || ::kill(pid_t(pid), 0) != 0)
        return false;
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray s = stat.readAll();
    const int close = s.lastIndexOf(')');
    return close < 0 || s.mid(close + 2, 1) != "Z";
}

} // namespace

class TestConsoleSshProfile final : public QObject {
    Q_OBJECT

private:
    SshServerFixture m_sshd;
    QTemporaryDir m_socketDir; ///< 01777, so the unprivileged agent may bind its socket there
    QString m_socket;
    AgentProcess m_agent;

    AgentProfile sshProfile(const QString& remote) const {
        AgentProfile p;
        p.id = AgentProfile::newId();
        p.name = QStringLiteral("ssh-agent");
        p.viaSsh = true;
        p.sshHost = QStringLiteral("127.0.0.1");
        p.sshUser = m_sshd.user;
        p.sshPort = m_sshd.port;
        p.sshRemote = remote;
        return p;
    }

    QString diagnostics() { return QStringLiteral("\nsshd: ") + m_sshd.log(); }

private Q_SLOTS:
    void initTestCase() {
        if (!QFile::exists(SshServerFixture::sshdPath()))
            QFAIL("/usr/sbin/sshd is missing: run scripts/install-test-deps (openssh-server)");
        QString error;
        QVERIFY2(m_sshd.start(&error), qPrintable(error));
        QVERIFY(m_socketDir.isValid());
        QVERIFY(::chmod(QFile::encodeName(m_socketDir.path()).constData(), 01777) == 0);
        m_socket = m_socketDir.filePath(QStringLiteral("agent.sock"));
        AgentOptions options;
        options.extraArgs = {"--listen-unix", m_socket};
        options.extraEnv = {{"RUNBOX_STRONG_UID_FIRST", "1889000000"},
                            {"RUNBOX_STRONG_UID_COUNT", "64"},
                            {"RUNBOX_LIGHT_UID_FIRST", "1889500000"},
                            {"RUNBOX_LIGHT_UID_COUNT", "64"}};
        QVERIFY2(m_agent.start(options), qPrintable(m_agent.errorString() + m_agent.log()));
        QVERIFY(QFile::exists(m_socket));
    }

    void testSocketProfileConnectsShowsTheAgentAndRuns() {
        QTemporaryDir settingsDir;
        ConsoleSettings settings(settingsDir.filePath(QStringLiteral("console.ini")));
        settings.setValue(ConsoleSettings::Key::SshProgram, m_sshd.wrapper(QStringLiteral("good")));
        TokenVault vault(QStringLiteral("runbox-console-ssh-test"),
                         TokenVault::Backend::SessionOnly);
        ConnectionManager manager(&vault);
        manager.setSshProgram(settings.value(ConsoleSettings::Key::SshProgram).toString());
        MainWindow window(&settings, &manager);
        window.show();
        const AgentProfile profile = sshProfile(m_socket);
        window.addAndConnect(profile, m_agent.token());
        AgentConnection* conn = manager.connection(profile.id);
        QVERIFY(conn && conn->tunnel());
        QTRY_VERIFY2_WITH_TIMEOUT(conn->state() == AgentConnection::State::Connected,
                                  qPrintable(conn->lastError() + diagnostics()), 30000);
        // Through the tunnel's local end, not the agent's own TCP port.
        const quint16 local = conn->tunnel()->localPort();
        QCOMPARE(conn->client()->baseUrl().port(), int(local));
        QVERIFY(local != m_agent.port());
        QVERIFY(processAlive(conn->tunnel()->processId()));
        QCOMPARE(conn->health().value(QLatin1String("version")).toString().isEmpty(), false);

        // The overview shows the agent, named by the profile.
        OverviewPage* overview = window.overviewPage();
        QTRY_VERIFY_WITH_TIMEOUT(!overview->sandboxHeadline().isEmpty(), 10000);
        QVERIFY2(overview->banner()->hostText().contains(profile.displayName()),
                 qPrintable(overview->banner()->hostText()));
        QVERIFY(profile.displayName().contains(m_socket));

        // A run through the tunnel.
        RunRequest run;
        run.kind = QStringLiteral("shell");
        run.code = QStringLiteral("echo through-ssh-$((6*7))");
        auto* launcher = new ExecutionLauncher(conn, run);
        std::unique_ptr<ExecutionFollower> follower;
        QByteArray out;
        QString failure;
        connect(launcher, &ExecutionLauncher::launched, this, [&](ExecutionFollower* f, bool) {
            follower.reset(f);
            connect(f, &ExecutionFollower::output, this,
                    [&out](int, const QByteArray& bytes) { out += bytes; });
        });
        connect(launcher, &ExecutionLauncher::failed, this,
                [&failure](const QString& why) { failure = why; });
        launcher->start();
        QTRY_VERIFY_WITH_TIMEOUT(follower || !failure.isEmpty(), 30000);
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        QTRY_VERIFY_WITH_TIMEOUT(follower->isFinished(), 30000);
        QVERIFY2(out.contains("through-ssh-42"), out.constData());
        QCOMPARE(follower->info().exitCode, 0);
        manager.disconnectProfile(profile.id);
    }

    void testTcpRemoteProfileConnects() {
        AgentConnection conn(sshProfile(QStringLiteral("127.0.0.1:%1").arg(m_agent.port())),
                             m_agent.token(), nullptr, m_sshd.wrapper(QStringLiteral("good")));
        conn.open();
        QTRY_VERIFY2_WITH_TIMEOUT(conn.state() == AgentConnection::State::Connected,
                                  qPrintable(conn.lastError() + diagnostics()), 30000);
        QVERIFY(conn.client()->baseUrl().port() != m_agent.port());
        int status = 0;
        conn.get("/v1/workspaces", this, [&status](const ApiResponse& r) { status = r.status; });
        QTRY_COMPARE_WITH_TIMEOUT(status, 200, 15000);
    }

    void testUnknownKeyIsRefusedWithSshsWords() {
        AgentConnection conn(sshProfile(m_socket), m_agent.token(), nullptr,
                             m_sshd.wrapper(QStringLiteral("stranger")));
        QElapsedTimer clock;
        clock.start();
        conn.open();
        QTRY_VERIFY2_WITH_TIMEOUT(conn.lastError().contains(QLatin1String("Permission denied")),
                                  qPrintable(conn.lastError() + diagnostics()), 20000);
        QVERIFY(clock.elapsed() < 20000); // BatchMode: no prompt, no hang
        // A refused key is not retried: asking sshd again cannot mend it (nor should the console
        // hammer sshd into its MaxStartups / fail2ban limits). It stays refused past the
        // reconnect backoff's first delays, with no ssh running, until the operator's Connect.
        QCOMPARE(conn.state(), AgentConnection::State::SshRefused);
        QCOMPARE(conn.tunnel()->state(), SshTunnel::State::Failed);
        QVERIFY(conn.tunnel()->failedForGood());
        QTest::qWait(4000);
        QCOMPARE(conn.state(), AgentConnection::State::SshRefused);
        QCOMPARE(conn.tunnel()->processId(), 0);
        QVERIFY2(conn.stateText().contains(QLatin1String("Permission denied")),
                 qPrintable(conn.stateText()));
        QSignalSpy states(&conn, &AgentConnection::stateChanged);
        conn.open(); // the operator's Connect tries once more
        QTRY_VERIFY_WITH_TIMEOUT(
            conn.state() == AgentConnection::State::SshRefused && states.size() >= 2, 20000);
        // The banner says it, not only a tooltip.
        HostBanner banner(QStringLiteral("Overview"), QStringLiteral(":/icons/agent.svg"));
        banner.setConnection(&conn);
        QVERIFY2(banner.hostText().contains(QLatin1String("Permission denied")),
                 qPrintable(banner.hostText()));
        QCOMPARE(conn.tunnel()->processId(), 0);
        QVERIFY(!conn.stateText().isEmpty());
    }

    void testMissingRemoteSocketSaysWhy() {
        AgentConnection conn(sshProfile(m_socketDir.filePath(QStringLiteral("no-such.sock"))),
                             m_agent.token(), nullptr, m_sshd.wrapper(QStringLiteral("good")));
        conn.open();
        QTRY_VERIFY2_WITH_TIMEOUT(conn.lastError().contains(QLatin1String("open failed")),
                                  qPrintable(conn.lastError() + diagnostics()), 20000);
        QCOMPARE(conn.tunnel()->state(), SshTunnel::State::Ready); // ssh itself got in
        QVERIFY(conn.state() != AgentConnection::State::Connected);
    }

    void testOtherHostKeyIsRefused() {
        AgentConnection conn(sshProfile(m_socket), m_agent.token(), nullptr,
                             m_sshd.wrapper(QStringLiteral("wronghost")));
        conn.open();
        QTRY_VERIFY2_WITH_TIMEOUT(
            conn.lastError().contains(QLatin1String("Host key verification failed")),
            qPrintable(conn.lastError() + diagnostics()), 20000);
        QCOMPARE(conn.state(), AgentConnection::State::SshRefused);
        QCOMPARE(conn.tunnel()->processId(), 0);
    }

    /// A tunnel that fails for a reason that may pass (sshd not listening yet) is retried.
    void testUnreachableSshdIsRetried() {
        AgentProfile p = sshProfile(m_socket);
        QTcpServer closed; // a port nothing accepts on once closed
        QVERIFY(closed.listen(QHostAddress::LocalHost, 0));
        p.sshPort = closed.serverPort();
        closed.close();
        AgentConnection conn(p, m_agent.token(), nullptr, m_sshd.wrapper(QStringLiteral("good")));
        conn.open();
        QTRY_VERIFY2_WITH_TIMEOUT(conn.state() == AgentConnection::State::Reconnecting,
                                  qPrintable(conn.lastError() + diagnostics()), 20000);
        QVERIFY(!conn.tunnel()->failedForGood());
        QVERIFY2(conn.lastError().contains(QLatin1String("refused"), Qt::CaseInsensitive),
                 qPrintable(conn.lastError()));
    }

    void testClosingAndDestroyingEndSsh() {
        qint64 pid = 0;
        {
            AgentConnection conn(sshProfile(m_socket), m_agent.token(), nullptr,
                                 m_sshd.wrapper(QStringLiteral("good")));
            conn.open();
            QTRY_VERIFY2_WITH_TIMEOUT(conn.state() == AgentConnection::State::Connected,
                                      qPrintable(conn.lastError() + diagnostics()), 30000);
            pid = conn.tunnel()->processId();
            QVERIFY(processAlive(pid)); // positive control
            conn.close();
            QCOMPARE(conn.tunnel()->state(), SshTunnel::State::Stopped);
            QTRY_VERIFY_WITH_TIMEOUT(!processAlive(pid), 5000);
            // Open again, then destroy it as quitting the console does.
            conn.open();
            QTRY_VERIFY2_WITH_TIMEOUT(conn.state() == AgentConnection::State::Connected,
                                      qPrintable(conn.lastError() + diagnostics()), 30000);
            pid = conn.tunnel()->processId();
            QVERIFY(processAlive(pid));
        }
        QTRY_VERIFY_WITH_TIMEOUT(!processAlive(pid), 5000);
    }

    void testKilledSshIsLostThenReconnected() {
        AgentConnection conn(sshProfile(m_socket), m_agent.token(), nullptr,
                             m_sshd.wrapper(QStringLiteral("good")));
        conn.setPollIntervalMs(500);
        conn.open();
        QTRY_VERIFY2_WITH_TIMEOUT(conn.state() == AgentConnection::State::Connected,
                                  qPrintable(conn.lastError() + diagnostics()), 30000);
        const qint64 pid = conn.tunnel()->processId();
        QVERIFY(processAlive(pid));
        bool lost = false;
        connect(&conn, &AgentConnection::stateChanged, this, [&lost](AgentConnection::State s) {
            lost = lost || s == AgentConnection::State::Reconnecting;
        });
        QCOMPARE(::kill(pid_t(pid), SIGKILL), 0);
        QTRY_VERIFY_WITH_TIMEOUT(lost, 10000);
        QVERIFY2(conn.lastError().contains(QLatin1String("SSH")), qPrintable(conn.lastError()));
        QTRY_VERIFY2_WITH_TIMEOUT(conn.state() == AgentConnection::State::Connected,
                                  qPrintable(conn.lastError() + diagnostics()), 30000);
        const qint64 again = conn.tunnel()->processId();
        QVERIFY(again != pid && processAlive(again));
    }

    void cleanupTestCase() {
        m_agent.stop();
        m_sshd.stop();
    }
};

QTEST_MAIN(TestConsoleSshProfile)
#include "test_console_ssh_profile.moc"
