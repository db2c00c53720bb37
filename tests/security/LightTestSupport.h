#pragma once
// Helpers shared by the light workspace tests: run a command to completion collecting both pipes,
// find live processes of a uid, install the light_attack probe into a home.

#include "agent/light/LightWorkspaceHost.h"
#include "agent/light/UidSweeper.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QFile>
#include <QString>
#include <QStringList>
#include <QThread>

#include <fcntl.h>
#include <functional>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace lighttest {

using namespace runbox::light;

struct RunResult {
    QByteArray out;
    QByteArray err;
    LightExitStatus status;
    bool finished = false; ///< status and both EOFs arrived within the bound
    QString error;         ///< exec() refused the request
};

/// Runs @p argv in workspace @p id until its status and both pipes' EOF are in (bounded by
/// @p boundMs, a safety net, not a timing assertion).
inline RunResult run(LightWorkspaceHost& host, const QString& id, const QStringList& argv,
                     qint64 timeoutMs = 0, const QMap<QString, QString>& env = {},
                     int boundMs = 60000) {
    RunResult result;
    int out[2], err[2];
    if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
        return result;
    LightExecRequest request;
    request.argv = argv;
    request.env = env;
    request.timeoutMs = timeoutMs;
    request.stdoutFd = out[1];
    request.stderrFd = err[1];
    runbox::Error error;
    const auto execution = host.exec(id, request, &error);
    ::close(out[1]);
    ::close(err[1]);
    if (!execution) {
        result.error = error.message;
        ::close(out[0]);
        ::close(err[0]);
        return result;
    }
    QElapsedTimer timer;
    timer.start();
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    QByteArray* sinks[2] = {&result.out, &result.err};
    int open = 2;
    while (open > 0 && timer.elapsed() < boundMs) {
        if (::poll(fds, 2, 100) <= 0)
            continue;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char buffer[65536];
            const ssize_t got = ::read(fds[i].fd, buffer, sizeof(buffer));
            if (got > 0) {
                sinks[i]->append(buffer, got);
            } else {
                ::close(fds[i].fd);
                fds[i].fd = -1;
                --open;
            }
        }
    }
    for (const pollfd& fd : fds) {
        if (fd.fd >= 0)
            ::close(fd.fd);
    }
    const int left = static_cast<int>(qMax<qint64>(0, boundMs - timer.elapsed()));
    result.finished = open == 0 && execution->waitForFinished(left);
    result.status = execution->status();
    return result;
}

inline RunResult sh(LightWorkspaceHost& host, const QString& id, const QString& script,
                    qint64 timeoutMs = 0, const QMap<QString, QString>& env = {}) {
    return run(host, id, {QStringLiteral("/bin/sh"), QStringLiteral("-c"), script}, timeoutMs, env);
}

/// Polls @p condition every 10 ms for up to @p boundMs (a bound, never a timing assertion).
inline bool waitUntil(const std::function<bool()>& condition, int boundMs = 10000) {
    QElapsedTimer timer;
    timer.start();
    while (!condition()) {
        if (timer.elapsed() > boundMs)
            return false;
        QThread::msleep(10);
    }
    return true;
}

/// Host pids of live processes whose uid is @p uid and whose cmdline contains @p needle.
inline QList<pid_t> processesOf(uid_t uid, const QByteArray& needle = {}) {
    QList<pid_t> found;
    for (pid_t pid : UidSweeper::findProcesses({uid})) {
        QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
        if (!cmdline.open(QIODevice::ReadOnly))
            continue;
        QByteArray text = cmdline.readAll();
        text.replace('\0', ' ');
        if (needle.isEmpty() || text.contains(needle))
            found << pid;
    }
    return found;
}

/// Copies the light_attack probe into the workspace home (owned by its uid, 0755); its path.
inline QString installAttack(LightWorkspaceHost& host, const QString& id) {
    const auto info = host.info(id);
    if (!info)
        return {};
    const QString target = info->home + QStringLiteral("/light_attack");
    QFile::remove(target);
    if (!QFile::copy(QStringLiteral(RUNBOX_BINARY_DIR "/tests/security/light_attack"), target))
        return {};
    const QByteArray path = target.toLocal8Bit();
    if (::chown(path.constData(), info->uid, info->uid) != 0 ||
        ::chmod(path.constData(), 0755) != 0)
        return {};
    return target;
}

} // namespace lighttest
