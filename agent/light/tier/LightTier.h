#pragma once

#include "agent/Error.h"
#include "agent/execution/IsolationTier.h"

#include <QPointer>
#include <QSet>

namespace runbox::workspace {
class WorkspaceRegistry;
}

namespace runbox::light {

class LightService;

/// The light tier (docs/light-workspaces.md, docs/ARCHITECTURE.md "Isolation tiers"): a
/// workspace's commands run through its supervisor (LightRun), concurrently, bounded by the
/// workspace's rlimits — each execution has a lease key of its own (`light-execution:<id>`)
/// and takes no global slot. No NPU passthrough (400 `npu_unavailable`); 503
/// `light_unavailable` while the host is not running. The backend is launched by
/// createBackend() itself, so that a racing delete (404/409) or missing pipes (503) refuse a
/// sync exec with their HTTP status. The tier's errors are runbox::Error. The
/// provenance recorded is `{"isolation":"light","env","cwd","argv","uid"}`: the env is the base
/// env plus the request's, never the workspace's own env (held in memory only), which applies
/// under it.
class LightTier final : public execution::IsolationTier {
public:
    /// @p workspaces: where the light rows are flushed before a record refers to them.
    LightTier(LightService* light, workspace::WorkspaceRegistry* workspaces)
        : m_light(light), m_workspaces(workspaces) {}

    QString name() const override { return QStringLiteral("light"); }
    execution::TierAdmission admission(const QString& executionId,
                                       const QString& workspaceId) const override;
    std::optional<Error> validate(const execution::ExecRequest& request,
                                  const workspace::Workspace& workspace) override;
    /// The workspace's environment, chosen at its creation (LightEnvironments::pin): naming
    /// none or its own runs in it, naming another is 409 `environment_mismatch`.
    std::optional<Error> pinEnvironment(const workspace::Workspace& workspace,
                                        execution::ExecRequest* request) override;
    /// Writes the workspace's row (the record refers to it) and restarts its idle clock.
    std::optional<Error> beforeRecord(const workspace::Workspace& workspace) override;
    QJsonObject startedFields() const override { return {{"isolation", "light"}}; }
    /// While the processes of the workspace are being killed for passing a bound between
    /// executions (LightBackgroundBounds), the launch waits until that is over, so the run does
    /// not meet them.
    void createBackend(const execution::TierLaunch& launch, QObject* parent,
                       BackendReady ready) override;
    void abandon(const QString& executionId) override { m_waiting.remove(executionId); }

private:
    void launchBackend(const execution::TierLaunch& launch, QObject* parent, BackendReady ready);
    /// Unavailable (503) light_unavailable while the host is not running.
    std::optional<Error> unavailable() const;

    QPointer<LightService> m_light; ///< may go first at agent shutdown
    workspace::WorkspaceRegistry* m_workspaces;
    QSet<QString> m_waiting; ///< executions whose launch waits for a kill to be over
};

} // namespace runbox::light
