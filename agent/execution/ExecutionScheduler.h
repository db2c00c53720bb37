#pragma once

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>

#include <functional>

namespace runbox::execution {

/// Admission of work that writes to a workspace (docs/managed.md "Admission, quotas"): one writer
/// per workspace at a time (the workspace lease), later writers of that workspace wait in arrival
/// order, different workspaces run in parallel, and at most `maxConcurrent` run in all (0 =
/// unlimited). A job blocked on its workspace never blocks jobs of other workspaces. Readers never
/// come here.
class ExecutionScheduler final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecutionScheduler)
public:
    /// @p start is called (once, from the event loop) when the job is admitted; the job then
    /// holds its workspace's lease until release(id). @p countsTowardsLimit: false for short
    /// file-API writes, which take the lease but not an execution slot.
    struct Job {
        QString id;
        QString workspaceId;
        std::function<void()> start;
        bool countsTowardsLimit = true;
    };

    explicit ExecutionScheduler(QObject* parent = nullptr);

    void setMaxConcurrent(int maxConcurrent);
    int maxConcurrent() const { return m_maxConcurrent; }
    /// Queues @p job and admits whatever can run. Ids must be unique among live jobs.
    void enqueue(Job job);
    /// Ends a running job (its lease and slot are freed) or drops a queued one. Returns true
    /// when @p id was queued (it will never start) or running.
    bool release(const QString& id);
    bool isQueued(const QString& id) const;
    bool isRunning(const QString& id) const { return m_running.contains(id); }
    /// 1-based position of a queued job in the global queue, 0 when not queued.
    int queuePosition(const QString& id) const;
    int runningCount() const { return int(m_running.size()); }
    int queuedCount() const { return int(m_queue.size()); }
    bool workspaceBusy(const QString& workspaceId) const {
        return m_leaseHolder.contains(workspaceId);
    }

Q_SIGNALS:
    /// Queue positions changed (for records that show them).
    void queueChanged();

private:
    void admit();

    int m_maxConcurrent = 0;
    int m_countedRunning = 0;
    QList<Job> m_queue;
    QHash<QString, Job> m_running;         ///< id → job
    QHash<QString, QString> m_leaseHolder; ///< workspace → job id
};

} // namespace runbox::execution
