#pragma once

// Helpers of the memory watchdog's tests (test_memory_watchdog, test_unix_socket_memory): a
// python3 child that holds a resource until it is killed, run under a prefix command (setpriv to
// another uid, unshare into a pid namespace), and a usage read after the watchdog settled.
#include "agent/bounds/MemoryWatchdog.h"

#include <QDeadlineTimer>
#include <QProcess>
#include <QStringList>

#include <sys/types.h>

namespace runbox::testsupport {

/// `python3 -c SCRIPT ARGS…` under @p prefix; start() returns once the script printed "ready"
/// (at most 30 s). The child is killed when the holder goes out of scope.
struct ScriptHolder {
    QProcess process;
    ~ScriptHolder() {
        if (process.state() != QProcess::NotRunning) {
            process.kill();
            process.waitForFinished(5000);
        }
    }
    bool start(const QStringList& prefix, const char* script, const QStringList& scriptArgs) {
        QStringList args = prefix;
        args << QStringLiteral("/usr/bin/python3") << QStringLiteral("-c")
             << QString::fromUtf8(script) << scriptArgs;
        process.start(args.takeFirst(), args);
        if (!process.waitForStarted(5000))
            return false;
        QDeadlineTimer deadline(30000);
        while (!process.readAllStandardOutput().contains("ready") && !deadline.hasExpired())
            process.waitForReadyRead(200);
        return !deadline.hasExpired();
    }
};

/// The setpriv(1) prefix that runs a command as @p uid (its gid the same, no groups).
inline QStringList asUid(uid_t uid) {
    return {QStringLiteral("/usr/bin/setpriv"),
            QStringLiteral("--reuid"),
            QString::number(uid),
            QStringLiteral("--regid"),
            QString::number(uid),
            QStringLiteral("--clear-groups")};
}

/// @p dog's usage of @p handle after three scans (the first reads the process table, the next
/// ones the processes).
inline bounds::MemoryWatchdog::Usage settledUsage(bounds::MemoryWatchdog& dog, int handle) {
    for (int i = 0; i < 3; ++i)
        dog.scanNow();
    return dog.usage(handle);
}

} // namespace runbox::testsupport
