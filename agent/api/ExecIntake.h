#pragma once

#include "agent/AgentContext.h"
#include "agent/execution/ExecRequest.h"

#include <QJsonObject>

#include <optional>

namespace runbox::workspace {
struct Workspace;
}

namespace runbox::api {

/// The validation every exec request gets, sync or managed (docs/contracts.md "Exec request"):
/// ExecRequest::parse against the limits in force, then the workspace's tier
/// (ExecutionManager::tierOf: 503 `<isolation>_unavailable` when none serves it) and that
/// tier's own checks (IsolationTier::validate), then the science environment it names
/// (environments::EnvironmentService::resolveSelection). Fills @p out on success.
std::optional<Error> parseExecRequest(AgentContext* context, const QJsonObject& body,
                                      const workspace::Workspace& workspace,
                                      execution::ExecRequest* out);

} // namespace runbox::api
