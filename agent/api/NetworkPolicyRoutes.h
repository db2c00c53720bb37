#pragma once

#include "agent/AgentContext.h"
#include "agent/api/Router.h"

namespace runbox::api {

/// Egress routes (agent/egress/README.md "In the agent"):
/// - `GET /v1/settings/network-policy` → `{"mode","allowedDomains":[…],"allowPrivateCidrs":[…],
///   "revision"}` (mode none: revision "none"). Agent token only (403 forbidden otherwise).
/// - `PUT /v1/settings/network-policy` with `{"mode","allowedDomains","allowPrivateCidrs"}` (a
///   "revision" key is ignored) → the stored, normalised policy in the same shape; 400
///   invalid_network_policy naming the offending entry (see egress::NetworkPolicy::fromJson).
///   Audited (`network.policy`, the caller's token id). Applies to executions created afterwards;
///   queued and running ones keep the policy of their permission epoch. Agent token only.
/// - `GET /v1/executions/{id}/egress` → `{"decisions":[{"executionId","host","port","allowed",
///   "reason","message","bytesUp","bytesDown","at"}…]}`, oldest first (managed and sync
///   executions; a workspace token sees only its workspace's). 404 execution_not_found when the
///   id has neither a record nor decisions.
class NetworkPolicyRoutes final {
public:
    static void registerRoutes(Router& router, AgentContext* context);
};

} // namespace runbox::api
