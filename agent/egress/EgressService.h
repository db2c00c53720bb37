#pragma once

#include "agent/Error.h"
#include "agent/egress/EgressDecision.h"
#include "agent/egress/EgressGatewayOptions.h"
#include "agent/egress/NetworkPolicy.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>

#include <memory>
#include <optional>

namespace runbox::execution {
struct PermissionEpoch;
}

namespace runbox::egress {

class EgressDecisionStore;
class EgressGatewayPool;
class NetworkPolicyStore;
class Resolver;

/// The agent's egress, wired (agent/egress/README.md): the policy setting (NetworkPolicyStore), the
/// gateways (EgressGatewayPool, one per revision), the decision record (EgressDecisionStore) and
/// whether egress can work on this host. EgressStage asks it for a socket per execution; the API
/// asks it for the policy, the decisions and the health.
///
/// Every decision of every gateway is appended to the store with the workspace of its execution
/// and then announced with decisionRecorded() (the agent forwards it to the execution's sync
/// stream). Decisions of one execution are all recorded by the time release() returns: releasing
/// aborts the execution's open connections, which report synchronously.
///
/// Errors are runbox::Error (docs/contracts.md "Errors"); the routes give them their status.
class EgressService final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EgressService)
public:
    struct Options {
        QString runtimeDir; ///< where the gateways' sockets live (`<state>/egress`)
        QString bridgePath; ///< host path of runbox-egress-bridge
        std::shared_ptr<Resolver> resolver;
        EgressGatewayOptions gateway;
    };

    /// The stores must outlive the service.
    EgressService(Options options, NetworkPolicyStore* policies, EgressDecisionStore* decisions,
                  QObject* parent = nullptr);
    ~EgressService() override;

    /// The policy in force.
    NetworkPolicy currentPolicy() const;
    /// `PUT /v1/settings/network-policy`: stores @p body as @p tokenId (audited) and makes its
    /// revision the pool's current one (idle gateways of older revisions close). Executions
    /// already created keep the policy of their epoch.
    std::optional<Error> updatePolicy(const QJsonObject& body, const QString& tokenId,
                                      NetworkPolicy* applied);
    /// Fills the network part of a new permission epoch with the policy in force: mode,
    /// revision and (for domain-allowlist) the whole policy object.
    void snapshotInto(execution::PermissionEpoch* epoch) const;

    /// The socket the sandbox of @p executionId (in @p workspaceId) gets, listening with
    /// @p policy (its snapshot). Errors as EgressGatewayPool::acquire(), and Conflict (409)
    /// duplicate_execution_id when @p executionId holds a socket already.
    std::optional<QString> acquire(const NetworkPolicy& policy, const QString& executionId,
                                   const QString& workspaceId, Error* error);
    /// Closes the socket of @p executionId; its last decisions are recorded before it returns.
    void release(const QString& executionId);

    /// Light workspaces under `domain-allowlist` (docs/light-workspaces.md "Egress gateway"):
    /// serves @p workspaceId with @p policy (its snapshot at creation) on @p listenerFd, the
    /// listening socket its supervisor made in the workspace's own network namespace (owned from
    /// now on). Decisions are recorded per workspace, with no execution id. Errors as
    /// EgressGatewayPool::adoptWorkspaceListener().
    std::optional<Error> serveLightWorkspace(const NetworkPolicy& policy,
                                             const QString& workspaceId, int listenerFd);
    /// Stops serving @p workspaceId; its last decisions are recorded before it returns.
    void releaseLightWorkspace(const QString& workspaceId);
    /// Every decision recorded with @p workspaceId (its light connections and its executions'),
    /// oldest first, at most 10000.
    std::optional<Error> workspaceDecisions(const QString& workspaceId,
                                            QList<EgressDecision>* out) const;

    /// Host path of the bridge binary.
    QString bridgePath() const { return m_options.bridgePath; }
    /// Empty when the bridge binary exists and is executable, else why not.
    QString bridgeProblem() const;
    /// What the start-up probe found (EgressProbe): egress works end to end, or why not.
    void setProbeResult(bool works, const QString& reason);
    bool available() const { return bridgeProblem().isEmpty() && m_probeWorks; }
    /// `{"available", "reason" (null when available), "modes": [...], "mode", "revision"}`.
    QJsonObject healthJson() const;

    /// The decisions of @p executionId, oldest first, each `{"executionId","host","port",
    /// "allowed","reason","message","bytesUp","bytesDown","at"}`.
    std::optional<Error> decisions(const QString& executionId, QList<EgressDecision>* out) const;
    /// The workspace recorded with the decisions of @p executionId ("" when none).
    std::optional<Error> decisionWorkspace(const QString& executionId, QString* out) const;

    /// The `{"type":"egress", …decision…}` event of a stream.
    static QJsonObject eventOf(const EgressDecision& decision);

    EgressGatewayPool* pool() const { return m_pool; }

Q_SIGNALS:
    /// @p decision of @p executionId was recorded.
    void decisionRecorded(const QString& executionId,
                          const runbox::egress::EgressDecision& decision);

private:
    void record(const EgressDecision& decision);

    Options m_options;
    NetworkPolicyStore* m_policies;
    EgressDecisionStore* m_decisions;
    EgressGatewayPool* m_pool;
    QHash<QString, QString> m_workspaceOf; ///< executionId → workspaceId while it holds a socket
    bool m_probeWorks = false;
    QString m_probeReason = QStringLiteral("egress has not been probed yet");
};

} // namespace runbox::egress
