#pragma once

#include "agent/http/HttpRequest.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QPointer>
#include <QTcpSocket>

namespace runbox::http {

/// Extra response headers, in order: name and value.
using HeaderList = QList<QPair<QByteArray, QByteArray>>;

/// Writes one HTTP/1.1 response on a socket (RFC 9112): the head with the agent's common headers
/// (Date, Server, Cache-Control: no-store, nosniff, Connection), then one of three framings:
/// - plain: reply() with Content-Length (none for 1xx, 204, 304: RFC 9110 §8.6);
/// - chunked: beginChunked(), writeChunk()… (each one HTTP chunk, RFC 9112 §7.1), endChunked();
/// - fixed length: beginFixed(), writeFixed()… (raw bytes, cut at the announced length),
///   endFixed() (a short body closes the connection).
/// A HEAD request gets the head only. Once the client is gone (setClientGone()) writes are
/// dropped but the response still ends (onFinish()). The base of HttpExchange, which adds the
/// signals; subclasses hear onStart() (just before the head is built) and onFinish().
class HttpResponseWriter {
public:
    /// @p headOnly: the request was HEAD. @p keepAlive: the connection stays open afterwards.
    HttpResponseWriter(QTcpSocket* socket, bool headOnly, bool keepAlive);
    virtual ~HttpResponseWriter() = default;
    HttpResponseWriter(const HttpResponseWriter&) = delete;
    HttpResponseWriter& operator=(const HttpResponseWriter&) = delete;

    /// A whole response: @p status, @p body of @p contentType, @p extraHeaders.
    void reply(int status, const QByteArray& body, const QByteArray& contentType,
               const HeaderList& extraHeaders = {});

    void beginChunked(int status, const QByteArray& contentType,
                      const HeaderList& extraHeaders = {});
    void writeChunk(const QByteArray& data);
    /// Ends the chunked body; a non-empty @p lastData goes out as the last data chunk in the
    /// same write as the terminating chunk (one segment instead of two for a final event).
    void endChunked(const QByteArray& lastData = {});

    /// Starts a response of exactly @p contentLength body bytes that follow through
    /// writeFixed() (raw, not chunked). For HEAD only the head is sent.
    void beginFixed(int status, const QByteArray& contentType, qint64 contentLength,
                    const HeaderList& extraHeaders = {});
    /// Writes body bytes of a beginFixed() response; bytes beyond contentLength are dropped.
    void writeFixed(const QByteArray& data);
    /// Ends a beginFixed() response. Fewer bytes than announced (a file that shrank) close
    /// the connection, so the client sees a short body rather than a wrong one.
    void endFixed();

    /// The connection closes after this response (call before it starts).
    void closeAfterResponse() { m_keepAlive = false; }
    /// Bytes queued in the socket and not yet sent: streams pause their producer above a
    /// threshold and resume once the socket drained (HttpExchange::writable).
    qint64 pendingBytes() const;
    bool isFinished() const { return m_finished; }
    /// A response has started (its head was written or queued).
    bool isStarted() const { return m_started; }
    /// The connection stays open after this response.
    bool keepAlive() const { return m_keepAlive; }
    bool isClientGone() const { return m_clientGone; }
    /// The status of the response once it started (101 for a connection taken over), else 0.
    int status() const { return m_status; }
    /// Body bytes handed to the socket so far (content only: no head, no chunk framing).
    qint64 bodyBytesWritten() const { return m_bodyBytes; }

protected:
    /// Called just before the head is built (the response starts).
    virtual void onStart() {}
    /// Called once the whole response has been handed to the socket.
    virtual void onFinish() {}
    /// The socket is there and the client has not gone.
    bool canWrite() const;
    /// Marks the client gone; returns false when it already was.
    bool setClientGone();
    /// Marks the response started and finished without writing anything (a protocol upgrade).
    void markTakenOver();
    QTcpSocket* socket() const { return m_socket; }

private:
    /// Marks the response started and builds its head (status line and common headers).
    QByteArray startHead(int status, const QByteArray& contentType, const HeaderList& extra);
    void finish();

    QPointer<QTcpSocket> m_socket;
    bool m_headOnly;
    bool m_keepAlive;
    bool m_started = false;
    bool m_finished = false;
    bool m_clientGone = false;
    qint64 m_fixedRemaining = -1; ///< beginFixed(): body bytes still to write
    int m_status = 0;
    qint64 m_bodyBytes = 0;
};

/// Reason phrase of @p status (RFC 9110 §15).
QByteArray reasonPhrase(int status);

} // namespace runbox::http
