#pragma once

// A real OpenSSH server for the console's SSH profile tests: host and client keys generated in a
// temporary directory, `/usr/sbin/sshd -D -e -f CFG` on a free loopback port, the client's key
// authorized for the current user (root in CI: PermitRootLogin prohibit-password). Clients reach
// it through wrapper scripts that run `ssh -F <config> "$@"` (ConsoleSettings' sshProgram), one
// per client configuration: the right key, a key the server does not know, a known_hosts that
// names another host key.

#include <QDir>
#include <QFile>
#include <QHostAddress>
#include <QProcess>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include <csignal>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

class SshServerFixture final {
public:
    SshServerFixture() = default;
    SshServerFixture(const SshServerFixture&) = delete;
    SshServerFixture& operator=(const SshServerFixture&) = delete;
    ~SshServerFixture() { stop(); }

    static QString sshdPath() { return QStringLiteral("/usr/sbin/sshd"); }

    /// Generates the keys, writes the configurations and starts sshd; false with @p error when
    /// a step fails or sshd does not accept within 15 s.
    bool start(QString* error) {
        if (!m_dir.isValid())
            return fail(error, QStringLiteral("no temporary directory"));
        for (const char* key : {"host_key", "other_host_key", "client_key", "stranger_key"})
            if (!keygen(dir(key), error))
                return false;
        const passwd* pw = ::getpwuid(::getuid());
        if (!pw)
            return fail(error, QStringLiteral("no passwd entry for the current uid"));
        user = QString::fromLocal8Bit(pw->pw_name);
        port = freePort();
        if (port == 0)
            return fail(error, QStringLiteral("no free port"));
        if (!write(dir("authorized_keys"), read(dir("client_key.pub"))))
            return fail(error, QStringLiteral("cannot write authorized_keys"));
        const QByteArray hostPrefix = QStringLiteral("[127.0.0.1]:%1 ").arg(port).toUtf8();
        if (!write(dir("known_hosts"), hostPrefix + read(dir("host_key.pub"))) ||
            !write(dir("wrong_known_hosts"), hostPrefix + read(dir("other_host_key.pub"))))
            return fail(error, QStringLiteral("cannot write known_hosts"));
        const QString cfg = QStringLiteral("ListenAddress 127.0.0.1\nPort %1\nHostKey %2\n"
                                           "AuthorizedKeysFile %3\nStrictModes no\n"
                                           "PermitRootLogin prohibit-password\nPidFile %4\n"
                                           "UsePAM no\nPasswordAuthentication no\n"
                                           "KbdInteractiveAuthentication no\n"
                                           "AllowTcpForwarding yes\n"
                                           "AllowStreamLocalForwarding yes\n")
                                .arg(port)
                                .arg(dir("host_key"), dir("authorized_keys"), dir("sshd.pid"));
        if (!write(dir("sshd_config"), cfg.toUtf8()))
            return fail(error, QStringLiteral("cannot write sshd_config"));
        if (!writeClient("good", "client_key", "known_hosts") ||
            !writeClient("stranger", "stranger_key", "known_hosts") ||
            !writeClient("wronghost", "client_key", "wrong_known_hosts"))
            return fail(error, QStringLiteral("cannot write the ssh wrappers"));
        // sshd's privilege separation directory.
        QDir().mkpath(QStringLiteral("/run/sshd"));
        m_process = std::make_unique<QProcess>();
        m_process->setProcessChannelMode(QProcess::MergedChannels);
        m_process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
        m_process->start(sshdPath(), {"-D", "-e", "-f", dir("sshd_config")});
        if (!m_process->waitForStarted(10000))
            return fail(error, m_process->errorString());
        const bool up = QTest::qWaitFor(
            [&] {
                if (m_process->state() == QProcess::NotRunning)
                    return true;
                QTcpSocket s;
                s.connectToHost(QHostAddress::LocalHost, port);
                return s.waitForConnected(200);
            },
            15000);
        if (!up || m_process->state() == QProcess::NotRunning)
            return fail(error, QStringLiteral("sshd did not start: ") + log());
        return true;
    }

    void stop() {
        if (!m_process || m_process->state() == QProcess::NotRunning)
            return;
        m_process->terminate();
        if (!m_process->waitForFinished(5000)) {
            m_process->kill();
            m_process->waitForFinished(2000);
        }
    }

    /// The wrapper for a client configuration: "good", "stranger" (a key sshd does not know),
    /// "wronghost" (known_hosts names another host key).
    QString wrapper(const QString& name) const { return dir(QStringLiteral("ssh-") + name); }
    /// sshd's output so far (-e: its log on stderr).
    QString log() const {
        if (m_process)
            m_log += QString::fromUtf8(m_process->readAll());
        return m_log;
    }
    QString dir(const QString& name) const { return m_dir.filePath(name); }

    QString user;
    quint16 port = 0;

private:
    static bool fail(QString* error, const QString& why) {
        *error = why;
        return false;
    }
    static QByteArray read(const QString& path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }
    static bool write(const QString& path, const QByteArray& data) {
        QFile f(path);
        return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(data) == data.size();
    }
    static quint16 freePort() {
        QTcpServer s;
        return s.listen(QHostAddress::LocalHost, 0) ? s.serverPort() : 0;
    }
    static bool keygen(const QString& path, QString* error) {
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QStringLiteral("ssh-keygen"),
                {"-q", "-t", "ed25519", "-N", "", "-C", "runbox-test", "-f", path});
        if (!p.waitForFinished(20000) || p.exitStatus() != QProcess::NormalExit ||
            p.exitCode() != 0)
            return fail(error, QStringLiteral("ssh-keygen failed: ") +
                                   QString::fromUtf8(p.readAll()) + p.errorString());
        return true;
    }
    // ssh_config for one client configuration, and its wrapper script.
    bool writeClient(const QString& name, const QString& key, const QString& knownHosts) {
        const QString cfg = QStringLiteral("Host *\n  IdentityFile %1\n  IdentitiesOnly yes\n"
                                           "  IdentityAgent none\n  UserKnownHostsFile %2\n"
                                           "  GlobalKnownHostsFile /dev/null\n"
                                           "  StrictHostKeyChecking yes\n"
                                           "  PasswordAuthentication no\n"
                                           "  ConnectTimeout 10\n")
                                .arg(dir(key), dir(knownHosts));
        const QString config = dir(QStringLiteral("ssh_config-") + name);
        const QString script = QStringLiteral("#!/bin/sh\nexec ssh -F '%1' \"$@\"\n").arg(config);
        return write(config, cfg.toUtf8()) && write(wrapper(name), script.toUtf8()) &&
               ::chmod(QFile::encodeName(wrapper(name)).constData(), 0755) == 0;
    }

    QTemporaryDir m_dir;
    std::unique_ptr<QProcess> m_process;
    mutable QString m_log;
};
