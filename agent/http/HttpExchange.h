#pragma once

#include "agent/Error.h"
#include "agent/http/HttpRequest.h"
#include "agent/http/HttpRequestBody.h"
#include "agent/http/HttpResponseWriter.h"
#include "shared/ApiError.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>

class QTcpSocket;

namespace runbox::http {

/// One request and its response. Handlers answer through it, at once or later (streams).
///
/// The response is written through the HttpResponseWriter it is (plain reply(), chunked,
/// fixed-length; see there), plus replyJson()/replyError() here. When the client goes away,
/// clientGone() is emitted once and later writes are ignored; the object is deleted by its
/// connection after the response ends or the client is gone — hold it in a QPointer.
///
/// A streamed request body (see RequestHandler::wantsBodyStream) is read through body()
/// (HttpRequestBody: accept, read, backpressure, completion, failure); accepting it sends
/// `100 Continue` when the client asked for it (RFC 9110 §10.1.1). Replying before the body is
/// complete is allowed (e.g. 413): the response then says `Connection: close`.
class HttpExchange final : public QObject, public HttpResponseWriter {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HttpExchange)
public:
    HttpExchange(HttpRequest request, QTcpSocket* socket, bool keepAlive, QObject* parent);

    const HttpRequest& request() const { return m_request; }

    /// A JSON response: @p body compact, with a trailing newline.
    void replyJson(int status, const QJsonObject& body);
    /// The wire error `{"error":{"code","message"}}` with its HTTP status (docs/contracts.md
    /// "Errors").
    void replyError(const ApiError& error);
    /// A domain error, its status from http::httpStatus() (agent/http/ErrorStatus.h).
    void replyError(const Error& error);
    void replyError(int status, const QString& code, const QString& message) {
        replyError(ApiError{status, code, message});
    }

    /// The streamed request body (empty and not streamed for a buffered request).
    HttpRequestBody& body() { return *m_body; }
    const HttpRequestBody& body() const { return *m_body; }
    /// After an answer given before the body is complete (an early 409 or 413), read and drop
    /// up to @p maxBytes more body bytes before closing the connection, so that clients which
    /// read the answer only once they have sent their whole body (Qt's QNetworkAccessManager)
    /// get it rather than a reset. 0 (default): close at once, with a lingering close.
    void setDrainLimit(qint64 maxBytes) { m_drainLimit = maxBytes; }
    qint64 drainLimit() const { return m_drainLimit; }

    // --- protocol upgrades (RFC 9110 §7.8; WebSocket, RFC 6455 §4) ---
    /// Takes the connection out of HTTP: from now on the caller owns the conversation on the
    /// returned socket (it is still the connection's child, deleted once it disconnects: hold it
    /// in a QPointer). @p buffered gets the bytes the client sent after the request head that
    /// were already read. No response is written by the exchange (the caller writes e.g. the
    /// 101 head itself), finished() is never emitted, and the connection neither parses nor
    /// times out anything on it any more. Null when a response already started or the client
    /// is gone.
    QTcpSocket* takeOverConnection(QByteArray* buffered);
    bool isTakenOver() const { return m_takenOver; }

    // --- called by the connection ---
    /// Reports a broken body: the body emits failed(), then @p error is answered unless a
    /// response already started; the connection closes after it.
    void failBody(const ApiError& error);
    void markClientGone();

Q_SIGNALS:
    void clientGone();
    /// Some queued bytes were sent.
    void writable();
    /// The whole response has been handed to the socket.
    void finished();
    /// takeOverConnection() was called: the connection hands over @p buffered and lets go.
    void takeOverRequested(QByteArray* buffered);

protected:
    void onStart() override;
    void onFinish() override;

private:
    HttpRequest m_request;
    HttpRequestBody* m_body; ///< child
    bool m_takenOver = false;
    qint64 m_drainLimit = 0;
};

} // namespace runbox::http
