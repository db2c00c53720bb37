#pragma once

#include "agent/api/AgentContext.h"
#include "agent/api/Router.h"

#include <functional>

namespace runbox::api {

/// `POST /v1/workspaces` (agent token; `{"isolation":"strong"}` → 201 `{"workspaces":[{"id",
/// "token","isolation","createdAt"}],"rejected":0}`), `GET /v1/workspaces` (agent: all;
/// workspace token: its own), `DELETE /v1/workspaces/{id}` (409 workspace_busy while an
/// execution runs in it).
class WorkspaceRoutes final {
public:
    /// @p isBusy tells whether an execution is running in a workspace.
    static void registerRoutes(Router& router, AgentContext* context,
                               std::function<bool(const QString&)> isBusy);
};

} // namespace runbox::api
