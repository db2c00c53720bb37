#pragma once

#include "agent/http/HttpConnection.h"
#include "agent/http/RequestBudget.h"

#include <QTcpServer>

#include <memory>

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
class HttpServer final : public QTcpServer {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HttpServer)
public:
    HttpServer(RequestHandler* handler, const HttpLimits& limits, QObject* parent = nullptr);

    /// Connections open now (accepted and not yet closed).
    qint64 openConnections() const { return m_open; }
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
    qint64 m_open = 0;
};

} // namespace runbox::http
