#include "agent/light/tier/LightTier.h"

#include "agent/light/LightExecMessage.h"
#include "agent/light/LightWorkspaceHost.h"
#include "agent/light/tier/LightBackgroundBounds.h"
#include "agent/light/tier/LightRun.h"
#include "agent/light/tier/LightService.h"
#include "agent/npu/NpuStage.h"
#include "agent/workspace/WorkspaceRegistry.h"

#include <QJsonArray>

namespace runbox::light {

execution::TierAdmission LightTier::admission(const QString& executionId,
                                              const QString& workspaceId) const {
    Q_UNUSED(workspaceId);
    return {QStringLiteral("light-execution:") + executionId, false};
}

std::optional<Error> LightTier::unavailable() const {
    if (m_light && m_light->available())
        return std::nullopt;
    return Error{ErrorKind::Unavailable, QStringLiteral("light_unavailable"),
                 m_light ? m_light->availability().reason
                         : QStringLiteral("light workspaces not started")};
}

std::optional<Error> LightTier::validate(const execution::ExecRequest& request,
                                         const workspace::Workspace& workspace) {
    Q_UNUSED(workspace);
    if (request.hasFeature(npu::NpuStage::kField))
        return Error{ErrorKind::InvalidArgument, QStringLiteral("npu_unavailable"),
                     QStringLiteral("light workspaces have no NPU passthrough")};
    return unavailable();
}

std::optional<Error> LightTier::pinEnvironment(const workspace::Workspace& workspace,
                                               execution::ExecRequest* request) {
    // One Landlock domain per workspace and no mount namespace per execution: the environment
    // is the one the workspace was created with (docs/environments.md "Selection").
    if (auto err = unavailable())
        return err;
    return m_light->environments()->pin(workspace.id, request);
}

std::optional<Error> LightTier::beforeRecord(const workspace::Workspace& workspace) {
    if (!m_light)
        return unavailable();
    m_light->touch(workspace.id); // the idle clock: the route names it in its body
    return m_workspaces->flushLightRows(workspace.id);
}

void LightTier::createBackend(const execution::TierLaunch& launch, QObject* parent,
                              BackendReady ready) {
    LightBackgroundBounds* bounds = m_light ? m_light->backgroundBounds() : nullptr;
    if (!bounds || !bounds->killing(launch.workspaceId))
        return launchBackend(launch, parent, std::move(ready));
    m_waiting.insert(launch.executionId);
    bounds->whenSettled(launch.workspaceId, parent, [this, launch, parent, ready] {
        if (m_waiting.remove(launch.executionId)) // not abandoned meanwhile
            launchBackend(launch, parent, ready);
    });
}

void LightTier::launchBackend(const execution::TierLaunch& launch, QObject* parent,
                              BackendReady ready) {
    execution::TierBackend made;
    made.refused = true;
    if (auto err = unavailable()) {
        made.error = err;
        return ready(made);
    }
    const auto info = m_light->host()->info(launch.workspaceId);
    if (!info) {
        made.error = Error{ErrorKind::NotFound, QStringLiteral("workspace_not_found"),
                           QStringLiteral("the workspace was deleted")};
        return ready(made);
    }
    const execution::ExecRequest& request = launch.request;
    const QMap<QString, QString> env =
        LightExecMessage::buildEnv(info->id, info->home, {}, request.env);
    QJsonObject envJson;
    for (auto it = env.cbegin(); it != env.cend(); ++it)
        envJson.insert(it.key(), it.value());
    auto* run = new LightRun(m_light, launch, parent);
    if (auto err = run->launch()) {
        delete run;
        made.error = err;
        return ready(made);
    }
    made.backend = run;
    made.provenance = {
        {"isolation", "light"},
        {"uid", double(info->uid)},
        {"env", envJson},
        {"cwd", request.cwd.isEmpty() ? info->home : info->home + '/' + request.cwd},
        {"argv", QJsonArray::fromStringList(m_light->environments()->of(info->id).isEmpty()
                                                ? request.sandboxCommand()
                                                : LightEnvironments::withEnvironmentInterpreter(
                                                      request.sandboxCommand()))}};
    ready(made);
}

} // namespace runbox::light
