#pragma once

#include "agent/http/HttpParser.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace runbox::egress {

/// One header line as received (name case preserved).
struct HeaderField {
    QByteArray name;
    QByteArray value;
};

/// The head of a proxy request: request line and header fields.
struct ProxyRequestHead {
    QByteArray method; ///< "GET", "CONNECT", …
    QByteArray target; ///< request-target exactly as sent
    int versionMajor = 1;
    int versionMinor = 1;
    QList<HeaderField> headers;
    bool chunked = false; ///< Transfer-Encoding: chunked
    bool upgrade = false; ///< CONNECT, or a non-CONNECT request asking for a protocol upgrade
    bool hasContentLength = false;

    bool isConnect() const { return method == "CONNECT"; }
    /// Every value of header @p name (case-insensitive), in order.
    QList<QByteArray> values(QByteArrayView name) const;
};

/// Incremental HTTP/1.x request parser for the egress gateway, over the agent's one
/// http-parser wrapper (http::HttpParser). It stops after the head so the gateway can decide before
/// reading any body, then yields the body de-chunked, and stops after the first message: the
/// gateway serves one request per connection (CONNECT, or one absolute-form request).
class ProxyRequestParser final {
public:
    enum class State { Head, Body, Complete, Error };

    /// @p maxHeadBytes bounds the request line plus headers (bytes).
    explicit ProxyRequestParser(qsizetype maxHeadBytes);
    ProxyRequestParser(const ProxyRequestParser&) = delete;
    ProxyRequestParser& operator=(const ProxyRequestParser&) = delete;

    /// Feeds client bytes. In state Head it consumes at most up to the end of the head and then
    /// switches to Body; in Body it appends de-chunked body bytes to @p body and switches to
    /// Complete after the message (for CONNECT right away: what follows is tunnel data).
    /// Returns how many bytes of @p data were consumed; the caller keeps the rest.
    qsizetype feed(const char* data, qsizetype size, QByteArray* body);

    State state() const { return m_state; }
    const ProxyRequestHead& head() const { return m_head; }
    /// Human text for state Error.
    QString errorMessage() const { return m_error; }
    /// True when the error is an over-long head (answer 431 rather than 400).
    bool headTooLarge() const { return m_headTooLarge; }

private:
    http::HttpParser m_parser;
    qsizetype m_maxHeadBytes;
    qsizetype m_headBytes = 0;
    State m_state = State::Head;
    ProxyRequestHead m_head;
    QByteArray* m_bodyOut = nullptr;
    QString m_error;
    bool m_headTooLarge = false;
};

} // namespace runbox::egress
