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
    /// being protocol::kVersion (shared/ProtocolVersion.h).
    static QJsonObject publicHealth();
};

} // namespace runbox::api
