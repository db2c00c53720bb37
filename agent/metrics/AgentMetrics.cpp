#include "agent/metrics/AgentMetrics.h"

#include "agent/egress/EgressDecision.h"
#include "agent/egress/EgressService.h"
#include "agent/execution/ExecutionManager.h"
#include "agent/light/tier/LightService.h"
#include "agent/npu/NpuService.h"

#include <algorithm>

namespace runbox::metrics {

QList<double> AgentMetrics::durationBuckets() {
    return {0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600};
}

QList<double> AgentMetrics::setupBuckets() {
    return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}

QString AgentMetrics::verdictOf(const egress::EgressDecision& decision) {
    if (decision.allowed)
        return QStringLiteral("allowed");
    static const QStringList badRequest{"malformed_request", "malformed_target", "host_mismatch",
                                        "request_too_large"};
    return badRequest.contains(decision.reason) ? QStringLiteral("bad_request")
                                                : QStringLiteral("denied");
}

AgentMetrics::AgentMetrics(MetricsRegistry* registry, Sources sources, QObject* parent)
    : QObject(parent) {
    const QString tier = QStringLiteral("tier");
    m_executions = registry->addCounter(
        QStringLiteral("runbox_executions_total"),
        QStringLiteral("Executions that ended (sync and managed), by tier, kind and final state."),
        {tier, QStringLiteral("kind"), QStringLiteral("state")});
    m_duration = registry->addHistogram(
        QStringLiteral("runbox_execution_duration_seconds"),
        QStringLiteral("Run time of executions whose command started, from launch to exit."),
        {tier}, durationBuckets());
    m_setup = registry->addHistogram(
        QStringLiteral("runbox_sandbox_setup_seconds"),
        QStringLiteral("Time from admission until the tier handed back a runnable sandbox launch "
                       "(launch stages: egress socket, chips, environment, cgroup)."),
        {tier}, setupBuckets());
    m_setupFailures = registry->addCounter(
        QStringLiteral("runbox_sandbox_setup_failures_total"),
        QStringLiteral("Runs that ended setup_failed, by tier and the part of the set-up that "
                       "failed (plan, spawn, timeout, sandbox, helper, other)."),
        {tier, QStringLiteral("cause")});
    m_egress = registry->addCounter(
        QStringLiteral("runbox_egress_decisions_total"),
        QStringLiteral("Egress gateway decisions, by verdict (allowed, denied, bad_request) "
                       "and reason."),
        {QStringLiteral("verdict"), QStringLiteral("reason")});

    execution::ExecutionManager* manager = sources.manager;
    registry->addGaugeCallback(
        QStringLiteral("runbox_execution_queue_length"),
        QStringLiteral("Jobs waiting for admission: executions (sync and managed) and file-API "
                       "writes waiting for their workspace lease or a global slot."),
        {}, [manager] {
            return QList<GaugeSample>{{{}, manager ? manager->queuedCount() : 0.0}};
        });
    registry->addGaugeCallback(
        QStringLiteral("runbox_executions_running"),
        QStringLiteral("Executions whose sandbox launch exists and has not ended (every tier)."),
        {}, [manager] {
            return QList<GaugeSample>{{{}, manager ? manager->runningExecutions() : 0.0}};
        });
    light::LightService* light = sources.light;
    registry->addGaugeCallback(
        QStringLiteral("runbox_light_workspaces"),
        QStringLiteral("Light workspaces that exist now (/v1/health light.workspaces)."), {},
        [light] {
            const double n =
                light ? light->healthJson().value(QLatin1String("workspaces")).toDouble() : 0.0;
            return QList<GaugeSample>{{{}, n}};
        });
    registry->addGaugeCallback(
        QStringLiteral("runbox_light_workspaces_capacity"),
        QStringLiteral("Light workspaces the host may hold: the quota maxLightWorkspaces."), {},
        [light] {
            const double n =
                light ? light->healthJson().value(QLatin1String("capacity")).toDouble() : 0.0;
            return QList<GaugeSample>{{{}, n}};
        });
    npu::NpuService* npu = sources.npu;
    registry->addGaugeCallback(
        QStringLiteral("runbox_npu_chips"),
        QStringLiteral("NPU chips of the last inventory read, by state: held (reserved by an "
                       "execution), free (probe passed, not held), unusable (probe failed)."),
        {QStringLiteral("state")}, [npu] {
            if (!npu)
                return QList<GaugeSample>{};
            const QJsonObject s = npu->healthSummary();
            const int chips = s.value(QLatin1String("chips")).toInt();
            const int usable = s.value(QLatin1String("usable")).toInt();
            const int held = s.value(QLatin1String("held")).toInt();
            return QList<GaugeSample>{
                {{QStringLiteral("held")}, double(held)},
                {{QStringLiteral("free")}, double(std::max(0, usable - held))},
                {{QStringLiteral("unusable")}, double(chips - usable)}};
        });

    if (manager) {
        connect(manager, &execution::ExecutionManager::executionEnded, this,
                &AgentMetrics::onExecutionEnded);
        connect(manager, &execution::ExecutionManager::sandboxReady, this,
                [this](const QString& tierName, qint64 setupMs) {
                    m_setup.observe({tierName}, double(setupMs) / 1000.0);
                });
        connect(manager, &execution::ExecutionManager::sandboxSetupFailed, this,
                [this](const QString& tierName, const QString& cause) {
                    m_setupFailures.inc({tierName, cause});
                });
    }
    if (sources.egress)
        connect(sources.egress, &egress::EgressService::decisionRecorded, this,
                [this](const QString&, const egress::EgressDecision& decision) {
                    m_egress.inc({verdictOf(decision), decision.reason});
                });
}

void AgentMetrics::onExecutionEnded(const execution::ExecutionEnd& end) {
    m_executions.inc({end.tier, end.kind, end.state});
    if (end.durationMs >= 0)
        m_duration.observe({end.tier}, double(end.durationMs) / 1000.0);
}

} // namespace runbox::metrics
