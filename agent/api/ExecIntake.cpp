#include "agent/api/ExecIntake.h"

#include "agent/environments/EnvironmentService.h"
#include "agent/execution/ExecutionManager.h"
#include "agent/execution/IsolationTier.h"
#include "agent/workspace/WorkspaceRegistry.h"

namespace runbox::api {

std::optional<Error> parseExecRequest(AgentContext* context, const QJsonObject& body,
                                      const workspace::Workspace& workspace,
                                      execution::ExecRequest* out) {
    execution::ExecutionManager* manager = context->manager;
    if (auto err = execution::ExecRequest::parse(body, manager->limits(), out))
        return err;
    Error noTier;
    execution::IsolationTier* tier = manager->tierOf(workspace, &noTier);
    if (!tier)
        return noTier;
    if (auto err = tier->validate(*out, workspace))
        return err;
    if (auto err = tier->pinEnvironment(workspace, out))
        return err;
    // The environment is resolved now, so the execution keeps the revision that is current at
    // its creation (docs/environments.md "Selection").
    if (context->environments)
        return context->environments->resolveSelection(out);
    return std::nullopt;
}

} // namespace runbox::api
