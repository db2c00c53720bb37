#include "agent/api/ExecIntake.h"

#include "agent/execution/ExecutionManager.h"
#include "agent/execution/IsolationTier.h"
#include "agent/workspace/WorkspaceRegistry.h"

namespace runbox::api {

std::optional<ApiError> parseExecRequest(AgentContext* context, const QJsonObject& body,
                                         const workspace::Workspace& workspace,
                                         execution::ExecRequest* out) {
    execution::ExecutionManager* manager = context->manager;
    if (auto err = execution::ExecRequest::parse(body, manager->limits(), out))
        return err;
    ApiError noTier;
    execution::IsolationTier* tier = manager->tierOf(workspace, &noTier);
    if (!tier)
        return noTier;
    return tier->validate(*out, workspace);
}

} // namespace runbox::api
