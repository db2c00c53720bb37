#pragma once

#include "agent/egress/EgressDecision.h"
#include "agent/egress/EgressGatewayOptions.h"
#include "agent/egress/NetworkPolicy.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>

namespace runbox::egress {

class EgressConnection;
class EgressRelay;
class Resolver;

/// The egress gateway of one policy revision: an HTTP/1.1 proxy (CONNECT tunnels without TLS
/// interception, absolute-form http:// requests) on unix sockets, that admits exactly what the
/// policy allows (docs/contracts.md "Egress gateway").
///
/// Per-execution sockets. One gateway serves one revision (policy, resolver, decision logic are
/// shared), but it listens on one socket per execution. The socket is bound read-write into the
/// sandbox, so code there can talk to it directly and would be able to forge any execution id
/// the bridge sent; with one socket per execution the socket itself is the identity, which
/// makes the attribution of every decision (and `GET /v1/executions/{id}/egress`) unforgeable.
/// A listener is one fd and an inode: cheap next to a sandbox.
class EgressGateway final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EgressGateway)
public:
    /// @p policy should be a domain-allowlist policy (under mode none every request is refused
    /// with reason policy_none).
    EgressGateway(const NetworkPolicy& policy, std::shared_ptr<Resolver> resolver,
                  const EgressGatewayOptions& options = {}, QObject* parent = nullptr);
    ~EgressGateway() override;

    /// Listens on the unix socket @p socketPath (created mode 0600; an old socket file there is
    /// replaced, any other file is an error; the path must fit sockaddr_un, 107 bytes) for
    /// connections of execution @p executionId. Returns false with @p error set on failure.
    bool listen(const QString& socketPath, const QString& executionId, QString* error);
    /// Stops listening for @p executionId, removes its socket file and aborts its open
    /// connections (each still reports its decision).
    void closeListener(const QString& executionId);
    QStringList executionIds() const { return m_listeners.keys(); }

    /// Serves light workspace @p workspaceId on @p listenerFd (owned from now on): a listening
    /// TCP socket made inside the workspace's own network namespace (light/helper/WorkspaceNetwork), so
    /// every connection on it comes from that workspace. Its decisions carry the workspace and
    /// no execution id. A workspace served already has its old listener closed first. False
    /// with @p error when the descriptor is not a listening TCP socket.
    bool adoptWorkspaceListener(int listenerFd, const QString& workspaceId, QString* error);
    /// Stops serving @p workspaceId and aborts its open connections (each still reports).
    void closeWorkspaceListener(const QString& workspaceId);
    QStringList workspaceIds() const { return m_workspaceListeners.keys(); }
    /// No execution and no workspace is served.
    bool idle() const { return m_listeners.isEmpty() && m_workspaceListeners.isEmpty(); }
    /// The socket path of @p executionId, or an empty string.
    QString socketPath(const QString& executionId) const;
    /// Connections open right now (all executions).
    int activeConnectionCount() const;
    const NetworkPolicy& policy() const { return m_policy; }

Q_SIGNALS:
    /// One per proxied connection, when it closes (see EgressDecision).
    void decisionMade(const runbox::egress::EgressDecision& decision);

private:
    struct Listener;
    struct WorkspaceListener;
    /// A connection on @p fd for @p executionId, or (executionId empty) for @p workspaceId.
    void accept(const QString& executionId, const QString& workspaceId, int fd);
    void abortConnections(const QString& executionId, const QString& workspaceId);

    NetworkPolicy m_policy;
    std::shared_ptr<Resolver> m_resolver;
    EgressGatewayOptions m_options;
    std::shared_ptr<EgressRelay> m_relay; ///< moves the bytes of decided connections
    QHash<QString, std::shared_ptr<Listener>> m_listeners;                   ///< by execution
    QHash<QString, std::shared_ptr<WorkspaceListener>> m_workspaceListeners; ///< by workspace
    QList<QPointer<EgressConnection>> m_connections;
    QHash<const EgressConnection*, QString> m_workspaceOfConnection; ///< light workspaces' ones
    QHash<QString, int> m_openConnections; ///< "e:<execution>" / "w:<workspace>" → open now
};

} // namespace runbox::egress
