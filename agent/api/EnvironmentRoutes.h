#pragma once

#include "agent/AgentContext.h"
#include "agent/api/Router.h"

namespace runbox::api {

/// Science environment routes (docs/environments.md "API"), agent token only (403 `forbidden`);
/// 503 `environments_unavailable` where the agent has none:
/// - `GET /v1/environments` → `{"environments":[…]}`
/// - `POST /v1/environments {"name","language","provisioner"?}` → 201 with the environment and
///   the `executionId` of its first build
/// - `GET /v1/environments/{id}`, `DELETE /v1/environments/{id}` (→ 200 `{"deleted":id}`)
/// - `POST /v1/environments/{id}/install {"packages":[…]}` → 202
///   `{"environmentId","revisionId","executionId","status"}`, the build followed through
///   `/v1/executions/{executionId}` like any execution
/// - `GET /v1/environments/{id}/revisions`, `GET /v1/environment-revisions/{id}/snapshot`
/// Errors are environments::EnvironmentService's, with their kind's status.
class EnvironmentRoutes final {
public:
    static void registerRoutes(Router& router, AgentContext* context);
};

} // namespace runbox::api
