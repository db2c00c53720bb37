#include "agent/http/HttpServer.h"

#include <QTcpSocket>

namespace runbox::http {

HttpServer::HttpServer(RequestHandler* handler, const HttpLimits& limits, QObject* parent)
    : QTcpServer(parent), m_handler(handler), m_limits(limits) {}

void HttpServer::incomingConnection(qintptr socketDescriptor) {
    auto* socket = new QTcpSocket;
    if (!socket->setSocketDescriptor(socketDescriptor)) {
        delete socket;
        return;
    }
    socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    new HttpConnection(socket, m_handler, m_limits, this);
}

} // namespace runbox::http
