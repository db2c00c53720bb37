#pragma once

#include "agent/metrics/MetricsRegistry.h"

#include <QObject>

namespace runbox::execution {
class ExecutionManager;
struct ExecutionEnd;
} // namespace runbox::execution
namespace runbox::egress {
class EgressService;
struct EgressDecision;
} // namespace runbox::egress
namespace runbox::light {
class LightService;
}
namespace runbox::npu {
class NpuService;
}

namespace runbox::metrics {

/// The agent's metric set (docs/metrics.md lists every family, its labels and unit) and its
/// wiring: counters and histograms fed by the signals of the objects where the events happen
/// (ExecutionManager::executionEnded, sandboxReady, sandboxSetupFailed;
/// EgressService::decisionRecorded), gauges read from their owners at each scrape (queue,
/// running executions, light workspaces, NPU chips). The HTTP families are api::HttpMetrics'.
/// Every source may be null (not wired, e.g. no light tier): its families then stay empty.
class AgentMetrics final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AgentMetrics)
public:
    struct Sources {
        execution::ExecutionManager* manager = nullptr;
        egress::EgressService* egress = nullptr;
        light::LightService* light = nullptr;
        npu::NpuService* npu = nullptr;
    };

    /// Registers the families in @p registry (which must outlive this object) and connects
    /// to @p sources (which must outlive @p registry's scrapes).
    AgentMetrics(MetricsRegistry* registry, Sources sources, QObject* parent = nullptr);

    /// The `verdict` label of @p decision: "allowed", "bad_request" (the request could not be
    /// read: malformed_request, malformed_target, host_mismatch, request_too_large) or
    /// "denied" (every other refusal: docs/contracts.md "Egress gateway").
    static QString verdictOf(const egress::EgressDecision& decision);

    /// Finite bucket bounds (seconds) of `runbox_execution_duration_seconds`.
    static QList<double> durationBuckets();
    /// Finite bucket bounds (seconds) of `runbox_sandbox_setup_seconds`.
    static QList<double> setupBuckets();

private:
    void onExecutionEnded(const execution::ExecutionEnd& end);

    Counter m_executions;
    Histogram m_duration;
    Histogram m_setup;
    Counter m_setupFailures;
    Counter m_egress;
};

} // namespace runbox::metrics
