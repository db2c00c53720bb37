#pragma once

#include <QByteArray>
#include <QString>

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include <sys/types.h>

namespace runbox::light {

/// Empty homes made ahead of time, so that creating a light workspace renames a directory
/// (about 6 µs) instead of making two (`mkdir` home + `.tmp`: 50–120 µs on ext4, much more right
/// after many deletions, when ext4 skips recently freed inodes). A thread of its own, at a lower
/// CPU priority (nice +10, setpriority(2)), keeps up to `target` spares named `.spare-<16 hex>`
/// in the workspace root: 0700, owned by the agent, `.tmp` inside, never seen by any workspace
/// until take() renames one (renameat2 RENAME_NOREPLACE) and hands it to its uid. When none is
/// ready, the caller makes the home itself (HomeDirectory::create); nothing waits for a spare.
/// Thread-safe.
class SpareHomes final {
public:
    /// Starts the thread; @p rootFd (the workspace root) is duplicated. @p target 0 = no spares.
    SpareHomes(int rootFd, int target);
    /// Stops the thread and removes the spares left.
    ~SpareHomes();
    SpareHomes(const SpareHomes&) = delete;
    SpareHomes& operator=(const SpareHomes&) = delete;

    /// Renames a spare to `root/<id>` and gives it (and its `.tmp`) to @p uid:@p gid. Returns an
    /// O_PATH fd on the home, or −1 when no spare was ready or it could not be adopted (then
    /// nothing named @p id was left behind).
    int take(const QByteArray& id, uid_t uid, gid_t gid);

    /// Whether @p name is a spare's name (HomeDirectory::cleanStale removes them at start-up).
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
