#pragma once

#include "agent/execution/IsolationTier.h"

#include <QObject>

#include <memory>

namespace runbox::store {
class ExecutionRepository;
class LogStore;
} // namespace runbox::store

namespace runbox::execution {

/// One managed execution from admission to its final record: marks it running (with the exact
/// provenance), writes every output byte to its log, and on the end
/// finishes the log durably *before* the record says it ended (so an acknowledged exit implies a
/// complete log). Emits done() once the record is final. The command runs in the backend its
/// workspace's IsolationTier makes; the run never asks which tier it is.
class ManagedRun final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ManagedRun)
public:
    struct Context {
        store::ExecutionRepository* repository = nullptr;
        store::LogStore* logs = nullptr;
        /// The workspace's tier; null: the run ends setup_failed (start() after stop()).
        IsolationTier* tier = nullptr;
    };

    /// @p launch: what the tier needs (TierLaunch::managed is set here); @p maxWorkspaceBytes:
    /// the quota a workspace must be under when the run leaves the queue (the live watch is the
    /// tier's BoundedBackend).
    ManagedRun(Context context, TierLaunch launch, qint64 maxWorkspaceBytes,
               QObject* parent = nullptr);
    ~ManagedRun() override;

    QString executionId() const { return m_launch.executionId; }
    void start();
    /// Kills the execution; the record becomes @p status once the process is gone.
    void stop(const QString& status, const QString& reason);

Q_SIGNALS:
    /// @p result: how it ended; @p ran: its command was started (a backend ran it), so
    /// result.durationMs is its run time.
    void done(const QString& executionId, const runbox::execution::ExecutionResult& result,
              bool ran);

private:
    void fail(const QString& status, const QString& reason);
    void onBackend(TierBackend made);
    void onFinished(const ExecutionResult& result);
    void record(const ExecutionResult& result);

    Context m_ctx;
    TierLaunch m_launch;
    qint64 m_maxWorkspaceBytes;
    bool m_preparing = false; ///< createBackend() has not answered yet
    ExecutionBackend* m_runner = nullptr;
    bool m_logOpen = false;
    bool m_done = false;
};

/// The store's state for a runner status string ("completed", "timed_out", …).
int exitSignalNumber(const QString& signalName);

} // namespace runbox::execution
