#pragma once

#include "agent/Error.h"
#include "agent/egress/EgressDecision.h"
#include "agent/egress/EgressGatewayOptions.h"
#include "agent/egress/NetworkPolicy.h"

#include <QHash>
#include <QObject>
#include <QString>

#include <memory>
#include <optional>

namespace runbox::egress {

class EgressGateway;
class Resolver;

/// The agent's egress gateways: one EgressGateway per policy revision, each with one socket per
/// execution (see EgressGateway for why), created on demand and closed when no execution uses
/// it any more and its revision is no longer the current one.
///
/// Sockets live at `<runtimeDir>/<revision[0:16]>-<sha256(executionId)[0:16]>.sock`; the
/// directory is created mode 0700 and the sockets are 0600.
///
/// Order of use: setCurrentRevision() whenever the policy setting changes (and at start-up);
/// acquire() when launching an execution under its snapshot policy; release() when the
/// execution has ended (its sandbox is gone).
class EgressGatewayPool final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EgressGatewayPool)
public:
    /// @p runtimeDir e.g. `<stateDir>/egress`; keep it short (sun_path holds 107 bytes).
    EgressGatewayPool(const QString& runtimeDir, std::shared_ptr<Resolver> resolver,
                      const EgressGatewayOptions& options = {}, QObject* parent = nullptr);
    ~EgressGatewayPool() override;

    /// Marks @p revision as the current policy revision and closes idle gateways of others.
    void setCurrentRevision(const QString& revision);
    QString currentRevision() const { return m_currentRevision; }

    /// The socket path the sandbox of @p executionId must get (bound at the path the bridge is
    /// given), listening with @p policy (the execution's snapshot). Acquiring an execution twice
    /// returns the same path if the revision is the same. Errors: InvalidArgument (400)
    /// "egress_policy_none" for a mode-none policy; Conflict (409) "egress_revision_conflict"
    /// when the execution already holds a socket of another revision; Unavailable (503)
    /// "egress_unavailable" when the directory or socket cannot be created.
    std::optional<QString> acquire(const NetworkPolicy& policy, const QString& executionId,
                                   Error* error);
    /// Closes the socket of @p executionId (aborting its open connections) and drops its
    /// gateway if it is idle and not current. Unknown ids are ignored.
    void release(const QString& executionId);

    /// Serves light workspace @p workspaceId, under @p policy (its snapshot at creation), on
    /// @p listenerFd (owned from now on; see EgressGateway::adoptWorkspaceListener). A workspace
    /// served already is moved to the new listener. Errors: InvalidArgument (400)
    /// egress_policy_none, Unavailable (503) egress_unavailable (the descriptor is not a
    /// listening TCP socket).
    std::optional<Error> adoptWorkspaceListener(const NetworkPolicy& policy,
                                                const QString& workspaceId, int listenerFd);
    /// Stops serving @p workspaceId (aborting its open connections). Unknown ids are ignored.
    void releaseWorkspace(const QString& workspaceId);

    int gatewayCount() const { return int(m_gateways.size()); }
    bool hasGateway(const QString& revision) const { return m_gateways.contains(revision); }
    /// The gateway of @p revision, or nullptr (for inspection and tests).
    EgressGateway* gateway(const QString& revision) const { return m_gateways.value(revision); }

Q_SIGNALS:
    /// Every decision of every gateway (see EgressDecision).
    void decisionMade(const runbox::egress::EgressDecision& decision);

private:
    QString socketPathFor(const QString& revision, const QString& executionId) const;
    /// The gateway of @p policy's revision, made when there is none.
    EgressGateway* gatewayFor(const NetworkPolicy& policy);
    void dropIfUnused(const QString& revision);

    QString m_runtimeDir;
    std::shared_ptr<Resolver> m_resolver;
    EgressGatewayOptions m_options;
    QString m_currentRevision = QStringLiteral("none");
    QHash<QString, EgressGateway*> m_gateways;     ///< revision → gateway (owned)
    QHash<QString, QString> m_revisionOfExecution; ///< executionId → revision
    QHash<QString, QString> m_revisionOfWorkspace; ///< light workspaceId → revision
};

} // namespace runbox::egress
