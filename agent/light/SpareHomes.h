#pragma once

#include <QByteArray>
#include <QString>

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include <sys/types.h>

namespace runbox::light {

/// Empty homes made ahead of time, so that creating a light workspace changes the owner of a
/// directory (two fchown, a few µs) instead of making two (`mkdir` home + `.tmp`: 20–300 µs on
/// ext4 without a journal, where each new inode walks past the recently freed ones). A thread of
/// its own, at a lower CPU priority (nice +10, setpriority(2)), keeps up to `target` spares in the
/// workspace root under names like a home's (16 hex digits): 0700, owned by the agent, `.tmp`
/// inside, never seen by any workspace until take() hands one to its uid. The home keeps the
/// spare's name (no rename: a rename would lock the root directory, which the thread's mkdir
/// holds), so a workspace's home name is not its id. When none is ready, the caller makes the
/// home itself (HomeDirectory::create); nothing waits for a spare. Thread-safe.
class SpareHomes final {
public:
    /// Starts the thread; @p rootFd (the workspace root) is duplicated. @p target 0 = no spares.
    SpareHomes(int rootFd, int target);
    /// Stops the thread and removes the spares left.
    ~SpareHomes();
    SpareHomes(const SpareHomes&) = delete;
    SpareHomes& operator=(const SpareHomes&) = delete;

    /// Gives a spare (and its `.tmp`) to @p uid:@p gid and sets @p name to its name in the root.
    /// Returns an O_PATH fd on the home, or −1 when no spare was ready or it could not be adopted
    /// (then it was removed).
    int take(uid_t uid, gid_t gid, QByteArray* name);

    /// Whether @p name is a spare's name from an older agent (`.spare-<16 hex>`);
    /// HomeDirectory::cleanStale removes those at start-up, and today's spares as stale homes.
    static bool isSpareName(const QByteArray& name);

private:
    void run();
    bool makeOne(QByteArray* name);

    int m_rootFd = -1;
    const int m_target;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::vector<QByteArray> m_ready; ///< guarded by m_mutex
    bool m_stopping = false;         ///< guarded by m_mutex
    std::thread m_thread;
};

} // namespace runbox::light
