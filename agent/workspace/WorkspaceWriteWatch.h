#pragma once

#include "agent/workspace/WorkspaceFd.h"
#include "agent/workspace/WorkspacePath.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QSocketNotifier>
#include <QTimer>

#include <memory>

namespace runbox::workspace {

/// Tells, within the event-loop pass after it happens, that something in a workspace tree was
/// written, so that the live quota watcher can measure at once instead of on its next timer
/// tick (docs/bounds.md "Disk"). One inotify(7) instance with a watch on every directory of the
/// tree (IN_MODIFY covers write(2), truncate and fallocate(2); IN_CREATE and IN_MOVED_TO new
/// entries); directories created or moved in while it runs get their own watch and are
/// walked for what was made in them before it. Directories are opened from the root descriptor
/// with WorkspaceResolver (never following a symlink) and watched through /proc/self/fd/N, so no
/// path outside the workspace is ever watched.
///
/// Best effort by design: it only triggers measurements, never counts. A directory it could not
/// watch (past Options::maxWatches, the host's max_user_watches, deeper than 64 levels below the
/// root — each is opened by its path from the root, so a deep tree made one mkdir at a time would
/// cost O(depth) per event —, a path longer than PATH_MAX, a rename race) makes complete()
/// false, and its writes are seen by the timer only. An inotify queue overflow (IN_Q_OVERFLOW)
/// is reported as a write, and the tree is walked again for directories that may have been
/// missed.
class WorkspaceWriteWatch final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorkspaceWriteWatch)
public:
    struct Options {
        int maxWatches =
            20000; ///< directories watched at most (each costs ~1 KiB of kernel memory)
    };

    /// Watches the tree under @p rootFd (duplicated; O_PATH is enough).
    explicit WorkspaceWriteWatch(int rootFd, QObject* parent = nullptr)
        : WorkspaceWriteWatch(rootFd, Options(), parent) {}
    WorkspaceWriteWatch(int rootFd, Options options, QObject* parent = nullptr);
    ~WorkspaceWriteWatch() override;

    /// Creates the inotify instance and watches every directory. False (with @p error) when the
    /// host gives no inotify instance at all (EMFILE against max_user_instances, ENOSYS).
    bool start(QString* error = nullptr);
    /// True when every directory seen so far is watched.
    bool complete() const { return m_complete; }
    /// Directories watched now.
    int watchCount() const { return int(m_watches.size()); }

Q_SIGNALS:
    /// Something under the root was written, created or moved in (or the event queue
    /// overflowed). At most once per batch of events read.
    void written();

private:
    void onReadable();
    /// Watches @p dir and, breadth first, every directory below it.
    void watchTree(const WorkspacePath& dir);
    /// Adds the watch of directory @p dirFd (opened O_RDONLY) known as @p path. True when it is
    /// watched now (also when it already was).
    bool addWatch(int dirFd, const WorkspacePath& path);
    void rescan();

    UniqueFd m_root;
    Options m_options;
    UniqueFd m_inotify;
    std::unique_ptr<QSocketNotifier> m_notifier;
    QHash<int, WorkspacePath> m_watches; ///< watch descriptor → directory
    bool m_complete = true;
    QElapsedTimer m_lastRescan; ///< the last whole-tree walk after a queue overflow
    QTimer m_rescanTimer;
};

} // namespace runbox::workspace
