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
/// writeChunk() (each flushed as one HTTP chunk, RFC 9112 §7.1), then endChunked(); or, when
/// the length is known (downloads), beginFixed(), writeFixed()…, endFixed(). When the
/// client goes away, clientGone() is emitted once and later writes are ignored; the object is
/// deleted by its connection after the response ends or the client is gone — hold it in a
/// QPointer.
///
/// Streamed request bodies (see RequestHandler::wantsBodyStream): nothing is read until the
/// handler calls acceptBody() (which also sends `100 Continue` when the client asked for it,
/// RFC 9110 §10.1.1); then bodyReadyRead() tells that readBody() has bytes, and bodyComplete()
/// that the last byte arrived. bodyFailed() reports a broken body (framing error, stall): the
/// connection answers it with bodyError() and closes. Replying before the body is complete
/// is allowed (e.g. 413): the response then says `Connection: close`.
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
    /// Ends the chunked body; a non-empty @p lastData goes out as the last data chunk in the
    /// same write as the terminating chunk (one segment instead of two for a final event).
    void endChunked(const QByteArray& lastData = {});

    /// Starts a response of exactly @p contentLength body bytes that follow through
    /// writeFixed() (raw, not chunked). For HEAD only the head is sent.
    void beginFixed(int status, const QByteArray& contentType, qint64 contentLength,
                    const QList<QPair<QByteArray, QByteArray>>& extraHeaders = {});
    /// Writes body bytes of a beginFixed() response; bytes beyond contentLength are dropped.
    void writeFixed(const QByteArray& data);
    /// Ends a beginFixed() response. Fewer bytes than announced (a file that shrank) close
    /// the connection, so the client sees a short body rather than a wrong one.
    void endFixed();

    // --- streamed request bodies (handler side) ---
    bool isBodyStreamed() const { return m_bodyStreamed; }
    /// Lets the body flow (idempotent); sends `100 Continue` when the client expects it.
    void acceptBody();
    bool isBodyAccepted() const { return m_bodyAccepted; }
    /// Takes up to @p maxBytes (all when negative) of the body bytes received and not yet read.
    QByteArray readBody(qint64 maxBytes = -1);
    /// Body bytes received and not yet read.
    qint64 bodyBytesAvailable() const { return m_body.size(); }
    /// Body bytes received so far (read or not).
    qint64 bodyBytesReceived() const { return m_bodyReceived; }
    /// The last body byte has arrived (some may still be unread).
    bool isBodyComplete() const { return m_bodyComplete; }
    /// Why the body broke off (valid after bodyFailed()).
    const ApiError& bodyError() const { return m_bodyError; }
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
    /// The connection closes after this response (call before it starts).
    void closeAfterResponse() { m_keepAlive = false; }

    // --- called by the connection ---
    void setBodyStreamed() { m_bodyStreamed = true; }
    void appendBody(const char* data, qsizetype size);
    /// Same for @p size bytes at @p data inside @p input: when they are all of @p input and
    /// nothing waits unread, @p input is shared (implicitly shared QByteArray), not copied — a
    /// streamed body passes from the socket to the handler without a copy here.
    void appendBody(const QByteArray& input, const char* data, qsizetype size);
    void markBodyComplete() { m_bodyComplete = true; }
    /// Emits bodyReadyRead() / bodyComplete() for what arrived since the last call.
    void publishBody();
    /// Reports a broken body: emits bodyFailed(), then answers @p error unless a response
    /// already started.
    void failBody(const ApiError& error);

    /// Bytes queued in the socket and not yet sent: streams pause their producer above a
    /// threshold and resume on writable().
    qint64 pendingBytes() const;
    bool isFinished() const { return m_finished; }
    /// A response has started (its head was written or queued).
    bool isStarted() const { return m_started; }
    /// The connection stays open after this response.
    bool keepAlive() const { return m_keepAlive; }
    bool isClientGone() const { return m_clientGone; }

    /// Called by the connection.
    void markClientGone();

Q_SIGNALS:
    void clientGone();
    /// Some queued bytes were sent.
    void writable();
    /// The whole response has been handed to the socket.
    void finished();
    /// takeOverConnection() was called: the connection hands over @p buffered and lets go.
    void takeOverRequested(QByteArray* buffered);
    /// Streamed body: more bytes can be read with readBody().
    void bodyReadyRead();
    /// Streamed body: the last byte has arrived (emitted after the last bodyReadyRead()).
    void bodyComplete();
    /// Streamed body: it broke off (bodyError()); the connection answers and closes.
    void bodyFailed();
    /// Streamed body: the handler accepted it or read some (the connection resumes reading).
    void bodyWanted();

private:
    /// Marks the response started and builds its head (status line and common headers).
    QByteArray startHead(int status, const QByteArray& contentType,
                         const QList<QPair<QByteArray, QByteArray>>& extra);
    bool canWrite() const;
    void finish();

    HttpRequest m_request;
    QPointer<QTcpSocket> m_socket;
    bool m_keepAlive;
    bool m_started = false;
    bool m_finished = false;
    bool m_clientGone = false;
    bool m_takenOver = false;
    qint64 m_fixedRemaining = -1; ///< beginFixed(): body bytes still to write
    bool m_bodyStreamed = false;
    bool m_bodyAccepted = false;
    bool m_bodyComplete = false;
    bool m_bodyCompleteSent = false;
    bool m_bodyFailed = false;
    bool m_bodyNewData = false;
    QByteArray m_body; ///< streamed body bytes not yet read
    qint64 m_bodyReceived = 0;
    qint64 m_drainLimit = 0;
    ApiError m_bodyError;
};

/// Reason phrase of @p status (RFC 9110 §15).
QByteArray reasonPhrase(int status);

} // namespace runbox::http
