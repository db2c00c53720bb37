#pragma once

#include "agent/AgentContext.h"
#include "agent/execution/ExecRequest.h"
#include "agent/http/HttpExchange.h"

#include <QJsonObject>

#include <functional>

namespace runbox::api {

/// Shared by sync and managed execution routes: when @p request names chips, checks them
/// against the NPU inventory (400 invalid_npu_devices, 400 npu_unavailable without NPU support,
/// 409 chip_busy under the refusal policy), possibly after the first inventory read, then calls
/// @p next with the request carrying the ascending chip ids. Without chips, calls @p next at once.
/// Errors are answered on @p exchange; @p next is not called when the client is gone.
void resolveNpuDevices(AgentContext* context, http::HttpExchange* exchange,
                       execution::ExecRequest request,
                       std::function<void(http::HttpExchange*, execution::ExecRequest)> next);

} // namespace runbox::api
