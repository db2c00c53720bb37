#pragma once

// A scripted peer for the console's GUI tests: a loopback server that answers as an agent of this
// protocol (GET /health, and GET /v1/health with the light tier holding 1 of 4 workspaces) and
// everything else by a route the test gives, for states the real agent cannot be put in without
// root (light workspaces) or at all (a missing route). One request per connection; signatures are
// not checked.

#include "console/connection/AgentProfile.h"
#include "shared/ProtocolVersion.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpServer>
#include <QTcpSocket>
#include <QUrl>

#include <functional>

namespace runbox::testsupport {

/// One scripted answer: an HTTP status and a JSON body.
struct PeerAnswer {
    int status;
    QJsonObject body;
};

/// The API's 404 for a route the peer does not have.
inline QJsonObject peerNotFound() {
    return {{"error", QJsonObject{{"code", "not_found"}, {"message", "no such route"}}}};
}

/// Answers every connection of @p server: the health routes as above, the rest by @p route
/// (given the request's head and body as read).
inline void servePeer(QTcpServer* server,
                      std::function<PeerAnswer(const QByteArray& request)> route) {
    QObject::connect(server, &QTcpServer::newConnection, server, [server, route] {
        while (QTcpSocket* s = server->nextPendingConnection())
            QObject::connect(s, &QTcpSocket::readyRead, s, [s, route] {
                const QByteArray request = s->readAll();
                PeerAnswer a;
                if (request.startsWith("GET /health "))
                    a = {200, {{"status", "ok"}, {"protocol", runbox::protocol::kVersion}}};
                else if (request.startsWith("GET /v1/health "))
                    a = {200,
                         {{"status", "ok"},
                          {"version", "0.0.1"},
                          {"light", QJsonObject{{"available", true},
                                                {"workspaces", 1},
                                                {"capacity", 4},
                                                {"defaultIdleTimeoutS", 600}}}}};
                else
                    a = route(request);
                const QByteArray json = QJsonDocument(a.body).toJson(QJsonDocument::Compact);
                s->write("HTTP/1.1 " + QByteArray::number(a.status) +
                         " X\r\nContent-Type: application/json\r\nContent-Length: " +
                         QByteArray::number(json.size()) + "\r\nConnection: close\r\n\r\n" + json);
                s->disconnectFromHost();
            });
    });
}

/// A console profile for the peer listening on @p server.
inline runbox::console::AgentProfile peerProfile(const QTcpServer& server) {
    return {runbox::console::AgentProfile::newId(), QStringLiteral("peer"),
            QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.serverPort()))};
}

} // namespace runbox::testsupport
