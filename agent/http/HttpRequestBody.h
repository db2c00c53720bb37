#pragma once

#include "shared/ApiError.h"

#include <QByteArray>
#include <QObject>

#include <functional>

namespace runbox::http {

/// The streamed body of one request (see RequestHandler::wantsBodyStream), owned by its
/// HttpExchange (HttpExchange::body()).
///
/// Handler side: nothing is read from the connection until accept() (the exchange then sends
/// `100 Continue` when the client asked for it, RFC 9110 §10.1.1); then readyRead() tells that
/// read() has bytes, and complete() that the last byte arrived. failed() reports a broken body
/// (framing error, stall, error()): the connection answers it and closes. Backpressure: the
/// connection reads from the socket only while bytesAvailable() is under its stream buffer, and
/// resumes on wanted() (emitted by accept() and by a read() that took bytes).
///
/// Connection side: append(), markComplete(), publish() (emits what arrived since the last
/// call), fail().
class HttpRequestBody final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HttpRequestBody)
public:
    explicit HttpRequestBody(QObject* parent) : QObject(parent) {}

    // --- handler side ---
    /// The request's body is streamed (not in HttpRequest::body).
    bool isStreamed() const { return m_streamed; }
    /// Lets the body flow (idempotent).
    void accept();
    bool isAccepted() const { return m_accepted; }
    /// Takes up to @p maxBytes (all when negative) of the body bytes received and not yet read.
    QByteArray read(qint64 maxBytes = -1);
    /// Body bytes received and not yet read.
    qint64 bytesAvailable() const { return m_body.size(); }
    /// Body bytes received so far (read or not).
    qint64 bytesReceived() const { return m_received; }
    /// The last body byte has arrived (some may still be unread).
    bool isComplete() const { return m_complete; }
    /// Why the body broke off (valid after failed()).
    const ApiError& error() const { return m_error; }

    // --- connection side ---
    void setStreamed() { m_streamed = true; }
    /// @p hook runs on the first accept() before wanted() (the exchange's `100 Continue`).
    void onFirstAccept(std::function<void()> hook) { m_onFirstAccept = std::move(hook); }
    /// No more bytes are taken (the response finished).
    void close() { m_closed = true; }
    void append(const char* data, qsizetype size);
    /// Same for @p size bytes at @p data inside @p input: when they are all of @p input and
    /// nothing waits unread, @p input is shared (implicitly shared QByteArray), not copied — a
    /// streamed body passes from the socket to the handler without a copy here.
    void append(const QByteArray& input, const char* data, qsizetype size);
    void markComplete() { m_complete = true; }
    /// Emits readyRead() / complete() for what arrived since the last call.
    void publish();
    /// Reports a broken body: drops what is unread and emits failed(). False when it already
    /// failed or was complete (nothing happens).
    bool fail(const ApiError& error);
    bool hasFailed() const { return m_failed; }

Q_SIGNALS:
    /// More bytes can be read with read().
    void readyRead();
    /// The last byte has arrived (emitted after the last readyRead()).
    void complete();
    /// It broke off (error()); the connection answers and closes.
    void failed();
    /// The handler accepted it or read some (the connection resumes reading).
    void wanted();

private:
    std::function<void()> m_onFirstAccept;
    bool m_streamed = false;
    bool m_accepted = false;
    bool m_complete = false;
    bool m_completeSent = false;
    bool m_failed = false;
    bool m_closed = false;
    bool m_newData = false;
    QByteArray m_body; ///< streamed body bytes not yet read
    qint64 m_received = 0;
    ApiError m_error;
};

} // namespace runbox::http
