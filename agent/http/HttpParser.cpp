#include "agent/http/HttpParser.h"

namespace runbox::http {

namespace {

HttpParser* self(http_parser* p) {
    return static_cast<HttpParser*>(p->data);
}

/// on_headers_complete's refusal. Not 1 or 2: http-parser reads those as "skip the body" /
/// "upgrade" and would go on with an empty body, then parse the body bytes as the next message.
/// Any other non-zero value is HPE_CB_headers_complete.
constexpr int kRefuse = 3;

} // namespace

HttpParser::HttpParser(Mode mode, qint64 maxHeadBytes, Callbacks callbacks)
    : m_maxHeadBytes(maxHeadBytes), m_callbacks(std::move(callbacks)) {
    http_parser_init(&m_parser, mode == Mode::Request ? HTTP_REQUEST : HTTP_RESPONSE);
    m_parser.data = this;
    http_parser_settings_init(&m_settings);
    m_settings.on_message_begin = &HttpParser::onMessageBegin;
    m_settings.on_url = &HttpParser::onUrl;
    m_settings.on_header_field = &HttpParser::onHeaderField;
    m_settings.on_header_value = &HttpParser::onHeaderValue;
    m_settings.on_headers_complete = &HttpParser::onHeadersComplete;
    m_settings.on_body = &HttpParser::onBody;
    m_settings.on_message_complete = &HttpParser::onMessageComplete;
}

qsizetype HttpParser::feed(const char* data, qsizetype size) {
    const size_t n = http_parser_execute(&m_parser, &m_settings, data, size_t(size));
    m_error = HTTP_PARSER_ERRNO(&m_parser);
    if (m_error == HPE_PAUSED)
        http_parser_pause(&m_parser, 0);
    return qsizetype(n);
}

bool HttpParser::headTooLarge() const {
    return m_error == HPE_CB_url || m_error == HPE_CB_header_field ||
           m_error == HPE_CB_header_value || m_error == HPE_HEADER_OVERFLOW;
}

bool HttpParser::countHead(size_t len) {
    m_headBytes += qint64(len);
    return m_maxHeadBytes <= 0 || m_headBytes <= m_maxHeadBytes;
}

int HttpParser::answer(Next next, bool inHeadComplete) {
    switch (next) {
    case Next::Continue:
        return 0;
    case Next::Pause:
        http_parser_pause(&m_parser, 1);
        return 0;
    case Next::SkipBody:
        return inHeadComplete ? 1 : 0;
    case Next::Refuse:
        return kRefuse;
    }
    return 0;
}

int HttpParser::onMessageBegin(http_parser* p) {
    HttpParser* s = self(p);
    s->m_head = Head{};
    s->m_headBytes = 0;
    s->m_lastWasValue = false;
    if (s->m_callbacks.messageBegin)
        s->m_callbacks.messageBegin();
    return 0;
}

int HttpParser::onUrl(http_parser* p, const char* at, size_t len) {
    HttpParser* s = self(p);
    if (!s->countHead(len))
        return 1;
    s->m_head.target.append(at, qsizetype(len));
    return 0;
}

int HttpParser::onHeaderField(http_parser* p, const char* at, size_t len) {
    HttpParser* s = self(p);
    if (!s->countHead(len))
        return 1;
    if (s->m_lastWasValue || s->m_head.headers.isEmpty())
        s->m_head.headers.append(QPair<QByteArray, QByteArray>());
    s->m_head.headers.last().first.append(at, qsizetype(len));
    s->m_lastWasValue = false;
    return 0;
}

int HttpParser::onHeaderValue(http_parser* p, const char* at, size_t len) {
    HttpParser* s = self(p);
    if (!s->countHead(len))
        return 1;
    if (s->m_head.headers.isEmpty())
        return 1; // http-parser always reports a name first
    s->m_head.headers.last().second.append(at, qsizetype(len));
    s->m_lastWasValue = true;
    return 0;
}

int HttpParser::onHeadersComplete(http_parser* p) {
    HttpParser* s = self(p);
    Head& h = s->m_head;
    h.method = p->type == HTTP_REQUEST ? QByteArray(http_method_str(http_method(p->method)))
                                       : QByteArray();
    h.status = int(p->status_code);
    h.versionMajor = p->http_major;
    h.versionMinor = p->http_minor;
    h.contentLength = p->content_length;
    h.chunked = (p->flags & F_CHUNKED) != 0;
    h.hasContentLength = (p->flags & F_CONTENTLENGTH) != 0;
    h.upgrade = p->upgrade != 0;
    h.keepAlive = http_should_keep_alive(p) != 0;
    if (!s->m_callbacks.headComplete)
        return 0;
    return s->answer(s->m_callbacks.headComplete(h), true);
}

int HttpParser::onBody(http_parser* p, const char* at, size_t len) {
    HttpParser* s = self(p);
    if (!s->m_callbacks.body)
        return 0;
    return s->answer(s->m_callbacks.body(at, qsizetype(len)), false);
}

int HttpParser::onMessageComplete(http_parser* p) {
    HttpParser* s = self(p);
    if (!s->m_callbacks.messageComplete)
        return 0;
    return s->answer(s->m_callbacks.messageComplete(), false);
}

} // namespace runbox::http
