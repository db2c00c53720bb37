#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

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
/// one event-loop turn (docs/bounds.md "Disk"). Emits exceeded() once when the size passes the
/// limit, then stops.
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

Q_SIGNALS:
    void exceeded(qint64 usedBytes, qint64 limitBytes);

private:
    void tick();
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
};

} // namespace runbox::execution
