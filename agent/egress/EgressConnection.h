#pragma once

#include "agent/egress/EgressDecision.h"
#include "agent/egress/EgressGatewayOptions.h"
#include "agent/egress/EgressRelay.h"
#include "agent/egress/ProxyRequestParser.h"
#include "agent/egress/TargetParser.h"

#include <QHostAddress>
#include <QObject>

class QTimer;

namespace runbox::egress {

class FdStream;
class NetworkPolicy;
class Resolver;
struct ResolveResult;

/// One client connection of an egress gateway: reads one proxy request, decides (mode → name
/// only → allowlist → one resolution → every address checked), then either tunnels (CONNECT) or
/// forwards one absolute-form request, and reports one EgressDecision when it closes.
class EgressConnection final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EgressConnection)
public:
    /// Takes ownership of @p clientFd. @p policy and @p resolver must outlive the connection
    /// (the gateway, its parent, owns both). With a @p relay, the bytes of a decided
    /// connection (the tunnel, or the response once the request is through) move on the
    /// relay's thread; without one, on this object's thread.
    EgressConnection(int clientFd, const QString& executionId, const NetworkPolicy& policy,
                     Resolver& resolver, const EgressGatewayOptions& options,
                     std::shared_ptr<EgressRelay> relay = nullptr, QObject* parent = nullptr);
    ~EgressConnection() override;

    const QString& executionId() const { return m_decision.executionId; }
    /// Ends the connection now (its execution ended); still reports the decision.
    void abort();

Q_SIGNALS:
    /// Emitted once when the connection is over; the object deletes itself afterwards.
    void finished(const runbox::egress::EgressDecision& decision);

private:
    enum class Phase { ReadingHead, Resolving, Dialing, Tunnel, Forwarding, Responding, Done };

    void onClientData(const QByteArray& data);
    void onClientEof();
    void onUpstreamData(const QByteArray& data);
    void onUpstreamEof();
    void parseHead();
    void decide();
    bool checkHostHeader();
    void onResolved(const ResolveResult& result);
    void onUpstreamConnected(int fd, const QHostAddress& address);
    void forwardRequestBody();
    void sendToUpstream(const QByteArray& data);
    void respond(int status, const QString& reason, const QString& message);
    void refuse(int status, const QString& reason, const QString& message);
    void maybeFinish();
    void handOff(EgressRelay::Mode mode);
    void onIdleTimer();
    void finish();
    void touch();

    const NetworkPolicy& m_policy;
    Resolver& m_resolver;
    EgressGatewayOptions m_options;
    FdStream* m_client = nullptr;
    FdStream* m_upstream = nullptr;
    std::shared_ptr<EgressRelay> m_relay;
    std::shared_ptr<EgressRelay::Tunnel> m_tunnel; ///< set while the relay moves the bytes
    QTimer* m_timer = nullptr;                     ///< head timeout, then idle timeout, then linger
    ProxyRequestParser m_parser;
    QByteArray m_inbox; ///< client bytes not yet consumed
    Target m_target;
    Phase m_phase = Phase::ReadingHead;
    EgressDecision m_decision;
    bool m_received = false;
    bool m_requestComplete = false;
    bool m_finished = false;
};

} // namespace runbox::egress
