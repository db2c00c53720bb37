#include "agent/http/HttpServer.h"

#include <QFile>
#include <QSslSocket>
#include <QTcpSocket>

#include <sys/socket.h>
#include <unistd.h>

namespace runbox::http {

HttpServer::HttpServer(RequestHandler* handler, const HttpLimits& limits, QObject* parent)
    : QTcpServer(parent), m_handler(handler), m_limits(limits),
      m_budget(limits.maxBufferedRequestBytes > 0
                   ? std::make_shared<RequestBudget>(limits.maxBufferedRequestBytes)
                   : nullptr) {
    setListenBacklogSize(systemListenBacklog()); // Qt's default is 50
}

int HttpServer::systemListenBacklog() {
    QFile f(QStringLiteral("/proc/sys/net/core/somaxconn"));
    bool ok = false;
    const int value = f.open(QIODevice::ReadOnly) ? f.readAll().trimmed().toInt(&ok) : 0;
    return ok && value > 0 ? value : SOMAXCONN;
}

void HttpServer::incomingConnection(qintptr socketDescriptor) {
    if (m_limits.maxConnections > 0 && *m_open >= m_limits.maxConnections) {
        refuseBusy(int(socketDescriptor));
        return;
    }
    QSslSocket* tls = m_tls ? new QSslSocket : nullptr;
    QTcpSocket* socket = tls ? tls : new QTcpSocket;
    if (tls)
        tls->setSslConfiguration(*m_tls);
    if (!socket->setSocketDescriptor(socketDescriptor)) {
        delete socket;
        return;
    }
    socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    if (tls)
        tls->startServerEncryption(); // readyRead comes with the first decrypted bytes
    auto* connection = new HttpConnection(socket, m_handler, m_limits, this, m_budget);
    ++*m_open;
    connect(connection, &QObject::destroyed, this, [open = m_open] { --*open; });
}

void HttpServer::refuseBusy(int fd) {
    static const QByteArray response = [] {
        const QByteArray body = ApiError{503, QStringLiteral("too_many_connections"),
                                         QStringLiteral("the agent has too many open "
                                                        "connections; retry later")}
                                    .toJsonBody() +
                                '\n';
        return "HTTP/1.1 503 Service Unavailable\r\n"
               "Content-Type: application/json; charset=utf-8\r\n"
               "Retry-After: 1\r\nConnection: close\r\nCache-Control: no-store\r\n"
               "Content-Length: " +
               QByteArray::number(body.size()) + "\r\n\r\n" + body;
    }();
    // The response fits in any fresh socket's send buffer: one non-blocking send. What the
    // client already sent is read and dropped first, so that close(2) sends a FIN, not a reset
    // that could destroy the response in flight (RFC 9112 §9.6).
    char scratch[4096];
    while (::recv(fd, scratch, sizeof scratch, MSG_DONTWAIT) > 0) {
    }
    (void)::send(fd, response.constData(), size_t(response.size()), MSG_DONTWAIT | MSG_NOSIGNAL);
    ::shutdown(fd, SHUT_WR);
    ::close(fd);
}

} // namespace runbox::http
