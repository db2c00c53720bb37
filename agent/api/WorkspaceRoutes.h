#pragma once

#include "agent/AgentContext.h"
#include "agent/api/Router.h"

#include <functional>

namespace runbox::api {

/// `POST /v1/workspaces` (agent token; `{"isolation":"strong"}` → 201 `{"workspaces":[{"id",
/// "token","isolation","createdAt"}],"rejected":0}`; `{"isolation":"light","count":N,…}` → see
/// LightService::create), `GET /v1/workspaces[?isolation=strong|light]` (agent: all; workspace
/// token: its own), `DELETE /v1/workspaces/{id}` (strong: 409 workspace_busy while an execution
/// runs in it; light: LightService::remove, 500 cleanup_failed when its uid was quarantined),
/// `DELETE /v1/workspaces?isolation=light` (agent token: every light workspace →
/// `{"deleted":[ids],"errors":[{"code","message"}]}`, 500 when some cleanup failed).
class WorkspaceRoutes final {
public:
    /// @p isBusy tells whether an execution is running in a workspace.
    static void registerRoutes(Router& router, AgentContext* context,
                               std::function<bool(const QString&)> isBusy);
};

} // namespace runbox::api
