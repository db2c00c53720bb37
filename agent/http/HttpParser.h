#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

#include <http_parser.h>

#include <functional>

namespace runbox::http {

/// The one wrapper of Debian's http-parser (nodejs/http-parser 2.9) in the agent: the server's
/// requests (HttpConnection), the port proxy's upstream responses (proxy::ProxySession) and the
/// egress gateway's proxy requests (egress::ProxyRequestParser) are all framed by it. It
/// assembles the request line / status and the header fields (names and values as received,
/// in order), bounds the head, and hands each stage of a message to a callback whose answer
/// (Next) steers the parser. Errors are http-parser's own (error(), errorText()).
class HttpParser final {
public:
    enum class Mode { Request, Response };

    /// What a callback asks the parser to do next.
    enum class Next {
        Continue, ///< go on
        Pause,    ///< stop feed() here (http_parser_pause); the next feed() resumes
        SkipBody, ///< from headComplete only: the message has no body (responses to HEAD, 204…)
        Refuse,   ///< stop with an error: HPE_CB_headers_complete, HPE_CB_body or
                  ///< HPE_CB_message_complete, by the callback that refused
    };

    /// The head of the message being parsed; complete when headComplete is called.
    struct Head {
        QByteArray method;                            ///< requests: "GET", "CONNECT", …
        QByteArray target;                            ///< requests: request-target as sent
        int status = 0;                               ///< responses: the status code
        int versionMajor = 1;                         ///< HTTP version of the message
        int versionMinor = 1;                         ///<
        QList<QPair<QByteArray, QByteArray>> headers; ///< as received (not trimmed or lowered)
        quint64 contentLength = ULLONG_MAX;           ///< ULLONG_MAX: none declared
        bool chunked = false;                         ///< Transfer-Encoding: chunked
        bool hasContentLength = false;                ///< a Content-Length field was sent
        bool upgrade = false;                         ///< CONNECT, or an Upgrade request
        bool keepAlive = true;                        ///< http_should_keep_alive()
    };

    /// The callbacks; any may be empty (then: Continue).
    struct Callbacks {
        std::function<void()> messageBegin;
        /// The head is complete (head()); decides about the body.
        std::function<Next(Head& head)> headComplete;
        /// De-chunked body bytes, as they arrive.
        std::function<Next(const char* data, qsizetype size)> body;
        std::function<Next()> messageComplete;
    };

    /// @p maxHeadBytes bounds the request-target plus header names and values of one message
    /// (bytes; 0: only http-parser's own bound, HPE_HEADER_OVERFLOW). Past it the parser stops
    /// with HPE_CB_url, HPE_CB_header_field or HPE_CB_header_value (headTooLarge()).
    HttpParser(Mode mode, qint64 maxHeadBytes, Callbacks callbacks);
    HttpParser(const HttpParser&) = delete;
    HttpParser& operator=(const HttpParser&) = delete;

    /// Parses @p size bytes of @p data (size 0: the peer closed, which ends a body delimited by
    /// the connection's close). Returns the bytes consumed: all unless a callback paused or
    /// refused, or the bytes are malformed (error()). A pause is lifted on return, so the next
    /// feed() goes on where this one stopped.
    qsizetype feed(const char* data, qsizetype size);

    /// The last feed()'s result: HPE_OK, HPE_PAUSED (a callback paused) or an error.
    http_errno error() const { return m_error; }
    /// True when error() is an error (neither HPE_OK nor HPE_PAUSED).
    bool failed() const { return m_error != HPE_OK && m_error != HPE_PAUSED; }
    /// http-parser's description of error() ("invalid character in header", …).
    QString errorText() const { return QString::fromLatin1(http_errno_description(m_error)); }
    /// The error is an over-long head (maxHeadBytes or http-parser's own HPE_HEADER_OVERFLOW).
    bool headTooLarge() const;
    /// The head of the message in progress (or the last one).
    const Head& head() const { return m_head; }
    Head& head() { return m_head; }

private:
    static int onMessageBegin(http_parser* p);
    static int onUrl(http_parser* p, const char* at, size_t len);
    static int onHeaderField(http_parser* p, const char* at, size_t len);
    static int onHeaderValue(http_parser* p, const char* at, size_t len);
    static int onHeadersComplete(http_parser* p);
    static int onBody(http_parser* p, const char* at, size_t len);
    static int onMessageComplete(http_parser* p);
    /// Maps a callback's answer to http-parser's return value.
    int answer(Next next, bool inHeadComplete);
    /// Adds @p len bytes to the head; false once it exceeds maxHeadBytes.
    bool countHead(size_t len);

    http_parser m_parser{};
    http_parser_settings m_settings{};
    qint64 m_maxHeadBytes;
    qint64 m_headBytes = 0;
    bool m_lastWasValue = false;
    Callbacks m_callbacks;
    Head m_head;
    http_errno m_error = HPE_OK;
};

} // namespace runbox::http
