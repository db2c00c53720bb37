#pragma once

#include "agent/execution/ExecRequest.h"
#include "agent/sandbox/BwrapCommand.h"
#include "agent/sandbox/SandboxCapability.h"
#include "agent/sandbox/SeccompProfile.h"

#include <QJsonObject>
#include <QMap>

#include <functional>
#include <optional>

namespace runbox::execution {

/// What every launch on this host shares: the probe's conclusion and the published seccomp
/// programs. Filled once at start-up.
struct SandboxHost {
    sandbox::SandboxCapability capability;
    QMap<sandbox::SeccompProfileKind, QString> seccompPaths;
    QString seccompError;
    QString identityDir;
    QString stateDir;
    quint64 maxProcesses = 4096; ///< RLIMIT_NPROC per sandbox

    bool ready() const { return capability.usable && seccompError.isEmpty(); }
};

/// The settings an execution runs under, fixed when it is created (its permission epoch,
/// DESIGN.md §2): `{"networkPolicy","networkAccessRevision","quotas":{…},"npuDevices":[…],
/// "environmentId"}`.
struct PermissionEpoch {
    QString networkMode = QStringLiteral("none");
    QString networkRevision = QStringLiteral("none");
    QJsonObject quotas;
    QList<int> npuDevices;
    QString environmentId;

    QJsonObject toJson() const;
};

/// A launch ready to start, and what to undo when the execution ends.
struct LaunchPlan {
    sandbox::SandboxLaunch launch;
    std::function<void()> release; ///< frees what the plan acquired (gateway socket, chips…)
};

/// Turns a validated request into a sandbox launch for one workspace directory. Features that
/// add to the launch (egress bridge, NPU passthrough) extend the spec here, in one place, so the
/// sync and the managed paths build identical sandboxes.
class LaunchPlanner final {
public:
    explicit LaunchPlanner(const SandboxHost* host) : m_host(host) {}

    /// Errors: 503 sandbox_unavailable when the host cannot sandbox.
    std::optional<ApiError> plan(const ExecRequest& request, const QString& workspaceDir,
                                 const QString& executionId, const PermissionEpoch& epoch,
                                 LaunchPlan* out) const;

private:
    const SandboxHost* m_host;
};

} // namespace runbox::execution
