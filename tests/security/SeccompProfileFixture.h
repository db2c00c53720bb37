#pragma once
// The set-up shared by the strong-tier seccomp profile tests (test_seccomp_profile,
// test_seccomp_profile_publish): the three published programs, and a forked child that loads a
// program exactly as bwrap does (PR_SET_NO_NEW_PRIVS, then PR_SET_SECCOMP) and attempts a call.
#include "agent/sandbox/SeccompProfile.h"

#include <QFile>
#include <QObject>
#include <QTemporaryDir>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace seccomptest {

/// One attempted call: its return value (negative with errno set on failure).
using Call = long (*)();

/// What a call did in the child: "ok" (returned >= 0), an errno name ("EPERM"), "SIGSYS" or
/// "signal N" when the child was killed, "no-filter: …" when the filter could not be loaded.
inline QString runInChild(const QByteArray& program, Call call) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return QStringLiteral("pipe failed");
    const pid_t pid = ::fork();
    if (pid < 0)
        return QStringLiteral("fork failed");
    if (pid == 0) {
        ::close(fds[0]);
        // fd 0 becomes /dev/null: the TIOCSTI rows must never reach a real terminal.
        const int devNull = ::open("/dev/null", O_RDWR);
        ::dup2(devNull, 0);
        long payload[3] = {1, 0, 0}; // loaded, return value, errno
        if (!program.isEmpty()) {
            sock_fprog prog{};
            prog.len = static_cast<unsigned short>(program.size() / sizeof(sock_filter));
            prog.filter = reinterpret_cast<sock_filter*>(const_cast<char*>(program.constData()));
            if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
                ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
                payload[0] = 0;
                payload[2] = errno;
                (void)!::write(fds[1], payload, sizeof payload);
                ::_exit(2);
            }
        }
        errno = 0;
        payload[1] = call();
        payload[2] = errno;
        (void)!::write(fds[1], payload, sizeof payload);
        ::_exit(0);
    }
    ::close(fds[1]);
    long payload[3] = {0, 0, 0};
    const ssize_t got = ::read(fds[0], payload, sizeof payload);
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFSIGNALED(status))
        return WTERMSIG(status) == SIGSYS ? QStringLiteral("SIGSYS")
                                          : QStringLiteral("signal %1").arg(WTERMSIG(status));
    if (got != sizeof payload)
        return QStringLiteral("no report (exit %1)").arg(WEXITSTATUS(status));
    if (payload[0] == 0)
        return QStringLiteral("no-filter: %1")
            .arg(QString::fromLatin1(strerrorname_np(int(payload[2]))));
    if (payload[1] >= 0)
        return QStringLiteral("ok");
    const char* name = strerrorname_np(int(payload[2]));
    return name ? QString::fromLatin1(name) : QStringLiteral("errno %1").arg(payload[2]);
}

/// The whole file at @p path (empty when it cannot be read).
inline QByteArray readFile(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

/// stat(2) of @p path (zeroed when it fails).
inline struct stat statOf(const QString& path) {
    struct stat st {};
    ::stat(QFile::encodeName(path).constData(), &st);
    return st;
}

/// Base of the seccomp profile test classes: a state directory and the programs published in
/// it. The test class calls publishAll() from initTestCase().
class SeccompProfileFixture : public QObject {
protected:
    QTemporaryDir m_stateDir;
    QByteArray m_baseline;
    QByteArray m_network;
    QByteArray m_npu;

    QString publishOrFail(runbox::sandbox::SeccompProfileKind kind) {
        QString error;
        const QString path =
            runbox::sandbox::SeccompProfile::publish(kind, m_stateDir.path(), &error);
        if (path.isEmpty())
            qWarning("publish failed: %s", qPrintable(error));
        return path;
    }

    /// Publishes the Baseline, Network and Npu programs and reads them into m_baseline,
    /// m_network and m_npu. False when one could not be published or read.
    bool publishAll() {
        using runbox::sandbox::SeccompProfileKind;
        if (!m_stateDir.isValid())
            return false;
        const QString baseline = publishOrFail(SeccompProfileKind::Baseline);
        const QString network = publishOrFail(SeccompProfileKind::Network);
        const QString npu = publishOrFail(SeccompProfileKind::Npu);
        if (baseline.isEmpty() || network.isEmpty() || npu.isEmpty())
            return false;
        m_baseline = readFile(baseline);
        m_network = readFile(network);
        m_npu = readFile(npu);
        return !m_baseline.isEmpty() && m_baseline.size() % 8 == 0;
    }
};

} // namespace seccomptest
