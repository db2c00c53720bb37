#pragma once

#include "agent/http/HttpConnection.h"

#include <QTcpServer>

namespace runbox::http {

/// The agent's HTTP/1.1 listener: one HttpConnection per accepted socket, all on this thread.
class HttpServer final : public QTcpServer {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HttpServer)
public:
    HttpServer(RequestHandler* handler, const HttpLimits& limits, QObject* parent = nullptr);

protected:
    void incomingConnection(qintptr socketDescriptor) override;

private:
    RequestHandler* m_handler;
    HttpLimits m_limits;
};

} // namespace runbox::http
