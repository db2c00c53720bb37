#pragma once

#include <QObject>
#include <QTimer>

#include <memory>

namespace runbox::workspace {
class WorkspaceFs;
}

namespace runbox::execution {

/// Watches a workspace's size while an execution runs: the allocated bytes
/// (st_blocks × 512, so sparse files count what they really use; WorkspaceUsage) are measured
/// with a budget, every max(50 ms, 4 × the last pass) so the cost stays bounded on big trees.
/// Emits exceeded() once when the size passes the limit.
class WorkspaceQuotaWatcher final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorkspaceQuotaWatcher)
public:
    /// @p limitBytes 0 = unlimited (the watcher then does nothing).
    WorkspaceQuotaWatcher(std::shared_ptr<const workspace::WorkspaceFs> fs, qint64 limitBytes,
                          QObject* parent = nullptr);
    void start();
    void stop() { m_timer.stop(); }
    /// One measurement now: true when the workspace is over the limit (bytes in @p used).
    bool overLimit(qint64* used = nullptr);
    /// True when the workspace has no byte left: at or over the limit. A new execution is refused
    /// then (BoundedTier), since RLIMIT_FSIZE lets a file reach the limit exactly.
    bool full(qint64* used = nullptr);

Q_SIGNALS:
    void exceeded(qint64 usedBytes, qint64 limitBytes);

private:
    void tick();
    bool measure(bool atLimitCounts, qint64* used);

    std::shared_ptr<const workspace::WorkspaceFs> m_fs;
    qint64 m_limit;
    QTimer m_timer;
};

} // namespace runbox::execution
