#pragma once

#include "agent/http/HttpRequest.h"
#include "shared/ApiError.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>

class QTcpSocket;

namespace runbox::http {

/// One request and its response. Handlers answer through it, at once or later (streams).
///
/// A plain response: reply()/replyJson()/replyError(). A stream: beginChunked(), any number of
/// writeChunk() (each flushed as one HTTP chunk, RFC 9112 §7.1), then endChunked(). When the
/// client goes away, clientGone() is emitted once and later writes are ignored; the object is
/// deleted by its connection after the response ends or the client is gone — hold it in a
/// QPointer.
class HttpExchange final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HttpExchange)
public:
    HttpExchange(HttpRequest request, QTcpSocket* socket, bool keepAlive, QObject* parent);

    const HttpRequest& request() const { return m_request; }

    void reply(int status, const QByteArray& body, const QByteArray& contentType,
               const QList<QPair<QByteArray, QByteArray>>& extraHeaders = {});
    void replyJson(int status, const QJsonObject& body);
    void replyError(const ApiError& error);
    void replyError(int status, const QString& code, const QString& message) {
        replyError(ApiError{status, code, message});
    }

    void beginChunked(int status, const QByteArray& contentType,
                      const QList<QPair<QByteArray, QByteArray>>& extraHeaders = {});
    void writeChunk(const QByteArray& data);
    void endChunked();

    /// Bytes queued in the socket and not yet sent: streams pause their producer above a
    /// threshold and resume on writable().
    qint64 pendingBytes() const;
    bool isFinished() const { return m_finished; }
    bool isClientGone() const { return m_clientGone; }

    /// Called by the connection.
    void markClientGone();

Q_SIGNALS:
    void clientGone();
    /// Some queued bytes were sent.
    void writable();
    /// The whole response has been handed to the socket.
    void finished();

private:
    QByteArray statusHead(int status, const QByteArray& contentType,
                          const QList<QPair<QByteArray, QByteArray>>& extra) const;
    void finish();

    HttpRequest m_request;
    QPointer<QTcpSocket> m_socket;
    bool m_keepAlive;
    bool m_started = false;
    bool m_finished = false;
    bool m_clientGone = false;
};

/// Reason phrase of @p status (RFC 9110 §15).
QByteArray reasonPhrase(int status);

} // namespace runbox::http
