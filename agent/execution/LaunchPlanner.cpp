#include "agent/execution/LaunchPlanner.h"

#include <QJsonArray>

namespace runbox::execution {

QJsonObject PermissionEpoch::toJson() const {
    QJsonArray chips;
    for (int id : npuDevices)
        chips.append(id);
    return {{"networkPolicy", networkMode},
            {"networkAccessRevision", networkRevision},
            {"quotas", quotas},
            {"npuDevices", chips},
            {"environmentId", environmentId.isEmpty() ? QJsonValue() : QJsonValue(environmentId)}};
}

std::optional<ApiError> LaunchPlanner::plan(const ExecRequest& request, const QString& workspaceDir,
                                            const QString&, const PermissionEpoch&,
                                            LaunchPlan* out) const {
    if (!m_host->ready())
        return ApiError{503, QStringLiteral("sandbox_unavailable"),
                        m_host->capability.usable
                            ? QStringLiteral("the seccomp profile could not be built: %1")
                                  .arg(m_host->seccompError)
                            : m_host->capability.unusableReason};
    sandbox::LaunchSpec spec;
    spec.workspaceDir = workspaceDir;
    spec.cwd = request.cwd;
    spec.command = request.sandboxCommand();
    spec.userEnv = request.env;
    spec.seccompPath = m_host->seccompPaths.value(sandbox::SeccompProfileKind::Baseline);
    spec.identityDir = m_host->identityDir;
    spec.stateDir = m_host->stateDir;
    out->launch = sandbox::BwrapCommand::build(m_host->capability, spec);
    out->release = [] {};
    return std::nullopt;
}

} // namespace runbox::execution
