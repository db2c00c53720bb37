#pragma once

#include "shared/ProtocolVersion.h"

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QTcpServer>
#include <QTcpSocket>

/// A fake pool host on loopback for test_pool_credential: answers `GET /health` with a pool host
/// nonce of its choosing, every other request with 404 `workspace_not_found`, and keeps every
/// request head it was sent, so a test can check which credentials reached it. Served from the
/// test's event loop (the CLI must then run without blocking it).
class FakePoolHost final : public QObject {
public:
    explicit FakePoolHost(QByteArray hostNonce) : m_nonce(std::move(hostNonce)) {
        QObject::connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection())
                serve(socket);
        });
    }

    bool listen() { return m_server.listen(QHostAddress::LocalHost, 0); }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort()); }
    /// Every request head received (request line and header fields), in order.
    const QList<QByteArray>& heads() const { return m_heads; }
    void clear() { m_heads.clear(); }

private:
    void serve(QTcpSocket* socket) {
        auto* buffer = new QByteArray;
        QObject::connect(socket, &QTcpSocket::disconnected, socket, [socket, buffer] {
            delete buffer;
            socket->deleteLater();
        });
        QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket, buffer] {
            *buffer += socket->readAll();
            const qsizetype end = buffer->indexOf("\r\n\r\n");
            if (end < 0 || buffer->isEmpty())
                return;
            const QByteArray head = buffer->left(end);
            buffer->clear();
            m_heads << head;
            const bool health = head.startsWith("GET /health ");
            const QJsonObject body =
                health ? QJsonObject{{"status", "ok"},
                                     {"version", "fake"},
                                     {"protocol", runbox::protocol::kVersion},
                                     {"pool", QJsonObject{{"hostNonce", QString(m_nonce)}}}}
                       : QJsonObject{{"error", QJsonObject{{"code", "workspace_not_found"},
                                                           {"message", "fake host"}}}};
            const QByteArray json = QJsonDocument(body).toJson(QJsonDocument::Compact);
            socket->write((health ? "HTTP/1.1 200 OK\r\n" : "HTTP/1.1 404 Not Found\r\n") +
                          QByteArray("Content-Type: application/json\r\nConnection: close\r\n"
                                     "Content-Length: ") +
                          QByteArray::number(json.size()) + "\r\n\r\n" + json);
            socket->disconnectFromHost();
        });
    }

    QTcpServer m_server;
    QByteArray m_nonce;
    QList<QByteArray> m_heads;
};
