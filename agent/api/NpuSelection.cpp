#include "agent/api/NpuSelection.h"

#include "agent/npu/NpuService.h"
#include "agent/npu/NpuStage.h"

#include <QPointer>

namespace runbox::api {

void resolveNpuDevices(AgentContext* context, http::HttpExchange* exchange,
                       execution::ExecRequest request,
                       std::function<void(http::HttpExchange*, execution::ExecRequest)> next) {
    if (!request.hasFeature(npu::NpuStage::kField))
        return next(exchange, std::move(request));
    npu::NpuService* npu = context->npu;
    if (!npu)
        return exchange->replyError(400, QStringLiteral("npu_unavailable"),
                                    QStringLiteral("no Ascend NPU passthrough on this agent"));
    // Validated against the inventory (which may still be reading the host: then later).
    QPointer<http::HttpExchange> guard(exchange);
    const QJsonValue requested = request.features.value(npu::NpuStage::kField);
    npu->resolveSelection(requested, exchange,
                          [npu, guard, request = std::move(request), next = std::move(next)](
                              std::optional<Error> err, const QList<int>& chips) mutable {
                              if (!guard)
                                  return;
                              if (err)
                                  return guard->replyError(*err);
                              if (auto busy = npu->checkBusy(chips))
                                  return guard->replyError(*busy);
                              npu::NpuStage::setChips(&request, chips);
                              next(guard, std::move(request));
                          });
}

} // namespace runbox::api
