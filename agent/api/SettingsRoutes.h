#pragma once

#include "agent/AgentContext.h"
#include "agent/api/Router.h"

namespace runbox::api {

/// `GET /v1/settings/quotas` → `{"quotas":{…bytes/ms, 0 = unlimited…},"lastChange":{…}|null}`;
/// `PUT /v1/settings/quotas` with any subset of the fields → the same shape after the change
/// (validated: 400 invalid_quota naming the field; audited with the caller's token id; applies
/// to executions created afterwards). Agent token only (403 for workspace tokens).
class SettingsRoutes final {
public:
    static void registerRoutes(Router& router, AgentContext* context);
};

} // namespace runbox::api
