#pragma once

#include "agent/execution/ExecRequest.h"
#include "agent/execution/ExecutionRunner.h"
#include "agent/execution/LaunchPlanner.h"

#include <QObject>

#include <memory>

namespace runbox::store {
class ExecutionRepository;
class LogStore;
} // namespace runbox::store
namespace runbox::workspace {
class WorkspaceFs;
} // namespace runbox::workspace

namespace runbox::execution {

class WorkspaceQuotaWatcher;

/// One managed execution from admission to its final record: marks it running (with the exact
/// provenance), writes every output byte to its log, watches the workspace quota, and on the end
/// finishes the log durably *before* the record says it ended (so an acknowledged exit implies a
/// complete log). Emits done() once the record is final. The command runs in a bwrap sandbox
/// (LaunchPlanner + ExecutionRunner) or, for a light workspace, through Context::backends.
class ManagedRun final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ManagedRun)
public:
    struct Context {
        store::ExecutionRepository* repository = nullptr;
        store::LogStore* logs = nullptr;
        const LaunchPlanner* planner = nullptr;
        const SandboxHost* host = nullptr;
        /// Set for workspaces that bwrap does not serve (light): the run skips the planner and
        /// runs through the backend this factory makes; null = a bwrap sandbox.
        ExecutionBackendFactory* backends = nullptr;
    };

    ManagedRun(Context context, QString executionId, ExecRequest request, QString workspaceId,
               std::shared_ptr<const workspace::WorkspaceFs> fs, QString workspaceDir,
               std::optional<uid_t> workspaceUid, PermissionEpoch epoch, qint64 maxWorkspaceBytes,
               QObject* parent = nullptr);
    ~ManagedRun() override;

    QString executionId() const { return m_id; }
    void start();
    /// Kills the execution; the record becomes @p status once the process is gone.
    void stop(const QString& status, const QString& reason);

Q_SIGNALS:
    void done(const QString& executionId);

private:
    void fail(const QString& status, const QString& reason);
    void launch();
    /// The path of Context::backends: no planner, the factory's backend and provenance.
    void launchBackend();
    void connectBackend();
    void onFinished(const ExecutionResult& result);
    void record(const ExecutionResult& result);

    Context m_ctx;
    QString m_id;
    ExecRequest m_request;
    QString m_workspaceId;
    std::shared_ptr<const workspace::WorkspaceFs> m_fs;
    QString m_workspaceDir;
    std::optional<uid_t> m_workspaceUid;
    PermissionEpoch m_epoch;
    qint64 m_maxWorkspaceBytes;
    std::shared_ptr<LaunchPlan> m_plan;
    bool m_planning = false;
    ExecutionBackend* m_runner = nullptr;
    WorkspaceQuotaWatcher* m_watcher = nullptr;
    bool m_logOpen = false;
    bool m_done = false;
};

/// The store's state for a runner status string ("completed", "timed_out", …).
int exitSignalNumber(const QString& signalName);

} // namespace runbox::execution
