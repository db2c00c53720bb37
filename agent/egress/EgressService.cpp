#include "agent/egress/EgressService.h"

#include "agent/egress/NetworkEpoch.h"

#include "agent/egress/EgressDecisionStore.h"
#include "agent/egress/EgressGatewayPool.h"
#include "agent/egress/NetworkPolicyStore.h"
#include "agent/execution/LaunchPlanner.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QLoggingCategory>

namespace runbox::egress {

namespace {
Q_LOGGING_CATEGORY(lcEgress, "runbox.egress")
constexpr int kMaxDecisionsListed = 10000;
} // namespace

EgressService::EgressService(Options options, NetworkPolicyStore* policies,
                             EgressDecisionStore* decisions, QObject* parent)
    : QObject(parent), m_options(std::move(options)), m_policies(policies), m_decisions(decisions),
      m_pool(new EgressGatewayPool(m_options.runtimeDir, m_options.resolver, m_options.gateway,
                                   this)) {
    m_pool->setCurrentRevision(m_policies->current().revision());
    connect(m_pool, &EgressGatewayPool::decisionMade, this, &EgressService::record);
}

EgressService::~EgressService() {
    // Deleted here, not as a child in ~QObject, so that the decisions of connections the pool
    // aborts on its way out are still recorded.
    delete m_pool;
}

NetworkPolicy EgressService::currentPolicy() const {
    return m_policies->current();
}

std::optional<Error> EgressService::updatePolicy(const QJsonObject& body, const QString& tokenId,
                                                 NetworkPolicy* applied) {
    NetworkPolicy policy;
    if (auto error = m_policies->update(body, tokenId, 0, &policy))
        return error;
    m_pool->setCurrentRevision(policy.revision());
    if (applied)
        *applied = policy;
    return std::nullopt;
}

void EgressService::snapshotInto(execution::PermissionEpoch* epoch) const {
    NetworkEpoch::of(m_policies->current()).writeInto(epoch);
}

std::optional<QString> EgressService::acquire(const NetworkPolicy& policy,
                                              const QString& executionId,
                                              const QString& workspaceId, Error* error) {
    // One socket, one execution: an execution id that already holds a socket (a running
    // execution, of this workspace or another) is refused, or a second sandbox would share the
    // first one's socket, its decisions record and, under a root agent, take it over (the stage
    // hands the socket to the new sandbox's uid).
    if (m_workspaceOf.contains(executionId)) {
        if (error)
            *error = Error{ErrorKind::Conflict, QStringLiteral("duplicate_execution_id"),
                           QStringLiteral("execution %1 is running").arg(executionId)};
        return std::nullopt;
    }
    std::optional<QString> path = m_pool->acquire(policy, executionId, error);
    if (path)
        m_workspaceOf.insert(executionId, workspaceId);
    return path;
}

void EgressService::release(const QString& executionId) {
    m_pool->release(executionId); // aborts its connections: their decisions are recorded now
    m_workspaceOf.remove(executionId);
}

std::optional<Error> EgressService::serveLightWorkspace(const NetworkPolicy& policy,
                                                        const QString& workspaceId,
                                                        int listenerFd) {
    return m_pool->adoptWorkspaceListener(policy, workspaceId, listenerFd);
}

void EgressService::releaseLightWorkspace(const QString& workspaceId) {
    m_pool->releaseWorkspace(workspaceId);
}

std::optional<Error> EgressService::workspaceDecisions(const QString& workspaceId,
                                                       QList<EgressDecision>* out) const {
    return m_decisions->listByWorkspace(workspaceId, kMaxDecisionsListed, out);
}

QString EgressService::bridgeProblem() const {
    const QFileInfo bridge(m_options.bridgePath);
    if (m_options.bridgePath.isEmpty()) // config::helperBinaryPath found none
        return QStringLiteral("runbox-egress-bridge is installed neither next to runbox-agent nor "
                              "in <bindir>/../libexec/runbox");
    if (!bridge.exists())
        return QStringLiteral("runbox-egress-bridge %1 does not exist").arg(m_options.bridgePath);
    if (!bridge.isFile() || !bridge.isExecutable())
        return QStringLiteral("%1 is not an executable file").arg(m_options.bridgePath);
    return {};
}

void EgressService::setProbeResult(bool works, const QString& reason) {
    m_probeWorks = works;
    m_probeReason = works ? QString() : reason;
}

QJsonObject EgressService::healthJson() const {
    QString reason = bridgeProblem();
    if (reason.isEmpty())
        reason = m_probeReason;
    const bool ok = reason.isEmpty();
    const NetworkPolicy policy = m_policies->current();
    return {{"available", ok},
            {"reason", ok ? QJsonValue() : QJsonValue(reason)},
            {"modes", ok ? QJsonArray{"none", "domain-allowlist"} : QJsonArray{"none"}},
            {"mode", NetworkPolicy::toString(policy.mode())},
            {"revision", policy.revision()}};
}

std::optional<Error> EgressService::decisions(const QString& executionId,
                                              QList<EgressDecision>* out) const {
    return m_decisions->list(executionId, kMaxDecisionsListed, out);
}

std::optional<Error> EgressService::decisionWorkspace(const QString& executionId,
                                                      QString* out) const {
    return m_decisions->workspaceOf(executionId, out);
}

QJsonObject EgressService::eventOf(const EgressDecision& decision) {
    QJsonObject event = decision.toJson();
    event.insert(QStringLiteral("type"), QStringLiteral("egress"));
    return event;
}

void EgressService::record(const EgressDecision& decision) {
    const QString workspaceId = decision.workspaceId.isEmpty()
                                    ? m_workspaceOf.value(decision.executionId)
                                    : decision.workspaceId;
    if (auto error = m_decisions->append(decision, workspaceId))
        qCWarning(lcEgress, "egress decision of %s could not be recorded: %s",
                  qPrintable(decision.executionId), qPrintable(error->message));
    Q_EMIT decisionRecorded(decision.executionId, decision);
}

} // namespace runbox::egress
