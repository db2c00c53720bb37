#pragma once

#include "agent/execution/IsolationTier.h"
#include "agent/execution/LaunchPlanner.h"

#include <functional>

namespace runbox::execution {

/// The strong tier (docs/ARCHITECTURE.md "Isolation tiers"): every execution runs in a bwrap
/// sandbox of its own, planned by the LaunchPlanner (the features' stages: egress, NPU…) and run
/// by an ExecutionRunner. An execution holds its workspace's lease and a global slot, so strong
/// executions of one workspace run one after another.
class StrongTier final : public IsolationTier {
public:
    /// @p availability: empty when sandboxes can be started now, else the 503
    /// `sandbox_unavailable` refusal (the host's probe failed). @p syncSetupTimeoutMs: how long a
    /// sync execution's sandbox may take to start its command (AgentConfig::setupTimeoutMs);
    /// managed ones get 10 s.
    StrongTier(const LaunchPlanner* planner, const SandboxHost* host,
               std::function<std::optional<Error>()> availability, qint64 syncSetupTimeoutMs);

    QString name() const override { return QStringLiteral("strong"); }
    bool runsInExecutionCgroup() const override { return true; }
    TierAdmission admission(const QString& executionId, const QString& workspaceId) const override;
    std::optional<Error> validate(const ExecRequest& request,
                                  const workspace::Workspace& workspace) override;
    /// Plans the launch; a stage's refusal is a set-up failure (TierBackend::refused false).
    /// The runner releases the plan before its finished() (so that what the release reports,
    /// the egress gateway's last decisions, comes before the exit) or when it is deleted.
    void createBackend(const TierLaunch& launch, QObject* parent, BackendReady ready) override;
    void abandon(const QString& executionId) override { m_planner->abandon(executionId); }

private:
    const LaunchPlanner* m_planner;
    const SandboxHost* m_host;
    std::function<std::optional<Error>()> m_availability;
    qint64 m_syncSetupTimeoutMs;
};

} // namespace runbox::execution
