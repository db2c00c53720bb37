#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <functional>
#include <memory>

namespace runbox::workspace {
class WorkspaceFs;
class WorkspaceWriteWatch;
} // namespace runbox::workspace

namespace runbox::execution {

/// Watches a workspace's size while an execution runs: the allocated bytes
/// (st_blocks × 512, so sparse files count what they really use; WorkspaceUsage) are measured
/// with a budget, every max(50 ms, 4 × the last pass) so the cost stays bounded on big trees,
/// and also as soon as the tree is written (WorkspaceWriteWatch), at most every
/// max(1 ms, 3 × the last pass): a writer then gets only as far as it writes in one pass plus
/// two event-loop turns (docs/bounds.md "Disk"). The live passes run on a pool of two threads,
/// one at a time per watcher, never on the event loop (a tenant's deep tree makes them long);
/// overLimit() and full() measure on the caller's thread. Emits exceeded() once when the size
/// passes the limit, then stops.
class WorkspaceQuotaWatcher final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorkspaceQuotaWatcher)
public:
    /// @p limitBytes 0 = unlimited (the watcher then does nothing).
    WorkspaceQuotaWatcher(std::shared_ptr<const workspace::WorkspaceFs> fs, qint64 limitBytes,
                          QObject* parent = nullptr);
    ~WorkspaceQuotaWatcher() override;
    /// The timer's floor between passes, @p ms (default 50; tests set it high to see the write
    /// watch alone at work).
    void setIntervalMs(int ms) { m_intervalMs = ms; }
    /// Starts the live watch (timer and write watch). Without inotify the timer alone runs.
    void start();
    void stop();
    /// Directories the write watch covers, and whether it covers all (tests, health).
    int writeWatchCount() const;
    bool writeWatchComplete() const;
    /// One measurement now: true when the workspace is over the limit (bytes in @p used).
    bool overLimit(qint64* used = nullptr);
    /// True when the workspace has no byte left: at or over the limit. A new execution is refused
    /// then (BoundedTier), since RLIMIT_FSIZE lets a file reach the limit exactly.
    bool full(qint64* used = nullptr);
    /// One measurement on the live passes' pool (overLimit(), off the event loop): @p done gets
    /// (over, used bytes) later on this object's thread, unless this object is gone by then.
    void overLimitLater(std::function<void(bool over, qint64 used)> done);

Q_SIGNALS:
    void exceeded(qint64 usedBytes, qint64 limitBytes);

private:
    void tick();
    void passDone(bool over, qint64 used, qint64 passUs);
    void onWritten();
    bool measure(bool atLimitCounts, qint64* used);

    std::shared_ptr<const workspace::WorkspaceFs> m_fs;
    qint64 m_limit;
    QTimer m_timer;
    std::unique_ptr<workspace::WorkspaceWriteWatch> m_writes;
    QElapsedTimer m_sincePass; ///< since the end of the last live pass
    qint64 m_lastPassUs = 0;
    int m_intervalMs;
    bool m_done = false;
    bool m_passRunning = false; ///< a live pass is on the pool now
    bool m_passWanted = false;  ///< a tick came while it ran: another pass right after
};

} // namespace runbox::execution
