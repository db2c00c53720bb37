#pragma once

#include "agent/execution/IsolationTier.h"

#include <memory>

namespace runbox::bounds {
class BoundsHost;
}

namespace runbox::execution {

class ExecutionManager;

/// Puts every tier's runs under the resource bounds (docs/bounds.md), so no tier can forget
/// them: ExecutionManager::addTier wraps each tier in one. It forwards everything to the tier and
/// adds (a) the refusals of the bounds, before any record or stream exists: 413
/// `workspace_quota_exceeded` while the workspace is at or over its maxWorkspaceBytes (what a run
/// left stays for the user to read and delete; the file API keeps working), 503
/// `limit_unenforceable` when a memory limit is set and this host has no mechanism to enforce
/// it (fail closed); and (b) the watcher: each backend comes back wrapped in a BoundedBackend.
/// Being the one place every run's launch passes, it also tells @p observer (may be null) how
/// long each set-up took and when it failed (ExecutionManager::watchBackend, sandboxSetupFailed:
/// the agent's metrics, docs/metrics.md).
class BoundedTier final : public IsolationTier {
public:
    /// @p host may be null (no memory bounds; the workspace quota is still watched).
    BoundedTier(std::unique_ptr<IsolationTier> inner, bounds::BoundsHost* host,
                ExecutionManager* observer = nullptr);

    QString name() const override { return m_inner->name(); }
    TierAdmission admission(const QString& executionId, const QString& workspaceId) const override {
        return m_inner->admission(executionId, workspaceId);
    }
    std::optional<Error> validate(const ExecRequest& request,
                                  const workspace::Workspace& workspace) override;
    std::optional<Error> pinEnvironment(const workspace::Workspace& workspace,
                                        ExecRequest* request) override {
        return m_inner->pinEnvironment(workspace, request);
    }
    std::optional<Error> beforeRecord(const workspace::Workspace& workspace) override {
        return m_inner->beforeRecord(workspace);
    }
    QJsonObject startedFields() const override { return m_inner->startedFields(); }
    bool runsInExecutionCgroup() const override { return m_inner->runsInExecutionCgroup(); }
    void createBackend(const TierLaunch& launch, QObject* parent, BackendReady ready) override;
    void abandon(const QString& executionId) override { m_inner->abandon(executionId); }

    /// The TooLarge (413) `workspace_quota_exceeded` of a workspace at @p usedBytes over @p
    /// limitBytes (the code uploads use too).
    static Error quotaExceeded(qint64 usedBytes, qint64 limitBytes);

private:
    std::unique_ptr<IsolationTier> m_inner;
    bounds::BoundsHost* m_host;
    ExecutionManager* m_observer;
};

} // namespace runbox::execution
