#pragma once

#include "agent/AgentContext.h"
#include "agent/api/Router.h"

namespace runbox::api {

/// `GET /health` (liveness, version, protocol) and `GET /v1/health` (the sandbox conclusion,
/// seccomp, limits, workspaces, `egress: {"available","reason","modes","mode","revision"}`, the
/// `npu` summary of NpuService::healthSummary(), `"light"`: LightService::healthJson(), `"idle"`:
/// AgentContext::idleJson()).
class HealthRoutes final {
public:
    static void registerRoutes(Router& router, AgentContext* context);
    /// The body of the unauthenticated `/health`: {"status":"ok","version","protocol"}, protocol
    /// being protocol::kVersion (shared/ProtocolVersion.h); with a non-empty @p poolHostNonce
    /// also `"pool":{"hostNonce"}`, the public half of a pool host's derived token, which a
    /// client needs before it can sign anything (docs/contracts.md "Pool credential").
    static QJsonObject publicHealth(const QByteArray& poolHostNonce = {});
};

} // namespace runbox::api
