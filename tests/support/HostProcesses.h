#pragma once

#include <QByteArray>
#include <QList>

#include <sys/types.h>

namespace runbox::testsupport {

/// One process as the host's /proc shows it.
struct HostProcess {
    qint64 pid = 0;
    uid_t uid = 0;      ///< real uid (first field of `Uid:` in /proc/<pid>/status)
    char state = '?';   ///< `State:` letter (R, S, Z, …)
    QByteArray cmdline; ///< argv joined with spaces
};

/// Scans the host's /proc (the test's view, outside any sandbox).
class HostProcesses final {
public:
    /// Every process visible now; processes that vanish during the scan are skipped.
    static QList<HostProcess> all();
    /// Processes whose command line contains @p needle (zombies included: they still exist).
    static QList<HostProcess> withCmdlineContaining(const QByteArray& needle);
    /// Processes of @p uid.
    static QList<HostProcess> ofUid(uid_t uid);
    /// "pid uid state cmdline" lines, for failure messages.
    static QByteArray describe(const QList<HostProcess>& processes);
    /// A `sleep` argument like "1000.4821907": @p seconds plus a random fraction, so that a test
    /// can find exactly its own sleeper in /proc (other tests may run the same command).
    static QByteArray uniqueSleepArgument(int seconds);
};

} // namespace runbox::testsupport
