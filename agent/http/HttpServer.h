#pragma once

#include "agent/http/HttpConnection.h"
#include "agent/http/RequestBudget.h"

#include <QSslConfiguration>
#include <QTcpServer>

#include <memory>
#include <optional>

namespace runbox::http {

/// The agent's HTTP/1.1 listener: one HttpConnection per accepted socket, all on this thread.
///
/// Front-door bounds (docs/contracts.md, "HTTP front door"): at most HttpLimits::maxConnections
/// connections are open at once; a connection beyond gets a canned `503` with `Retry-After`
/// written straight to its descriptor and is closed, without a socket object or a parser. The
/// buffered request bodies of all connections share one RequestBudget of
/// HttpLimits::maxBufferedRequestBytes. The listen backlog is the system's
/// `net.core.somaxconn` (listen(2): a larger value is silently truncated to it anyway), so a
/// burst of connects is queued rather than left to SYN retries.
///
/// With setTls() every accepted connection is a QSslSocket that starts the server side of a TLS
/// handshake at once (QSslServer is Qt 6.5's; this is what it does): the same HttpConnection then
/// reads the decrypted bytes, so routes, limits and timeouts are those of the plain listener, the
/// head timeout covering the handshake too.
class HttpServer final : public QTcpServer {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HttpServer)
public:
    HttpServer(RequestHandler* handler, const HttpLimits& limits, QObject* parent = nullptr);

    /// Makes this a TLS listener with @p config (tls::TlsIdentity::serverConfiguration()); for
    /// connections accepted from then on.
    void setTls(const QSslConfiguration& config) { m_tls = config; }
    bool isTls() const { return m_tls.has_value(); }
    /// Makes this listener count against @p other's bounds: one connection cap and one
    /// RequestBudget for both (the TLS listener shares the plain one's: the bounds hold for the
    /// agent, docs/contracts.md "HTTP front door"). Call before listening.
    void shareBoundsWith(const HttpServer& other) {
        m_budget = other.m_budget;
        m_open = other.m_open;
    }

    /// Connections open now (accepted and not yet closed).
    qint64 openConnections() const { return *m_open; }
    /// Request bytes reserved by buffered bodies now.
    qint64 bufferedRequestBytes() const { return m_budget ? m_budget->reservedBytes() : 0; }
    /// `/proc/sys/net/core/somaxconn`, or SOMAXCONN when it cannot be read.
    static int systemListenBacklog();

protected:
    void incomingConnection(qintptr socketDescriptor) override;

private:
    /// Answers 503 on the raw descriptor @p fd and closes it (connection cap reached).
    static void refuseBusy(int fd);

    RequestHandler* m_handler;
    HttpLimits m_limits;
    std::shared_ptr<RequestBudget> m_budget; ///< null: unbounded
    std::shared_ptr<qint64> m_open = std::make_shared<qint64>(0); ///< shared: shareBoundsWith()
    std::optional<QSslConfiguration> m_tls; ///< set: every connection speaks TLS
};

} // namespace runbox::http
