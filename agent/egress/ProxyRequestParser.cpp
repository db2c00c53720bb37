#include "agent/egress/ProxyRequestParser.h"

#include <cstring>

namespace runbox::egress {

namespace {

ProxyRequestParser* self(http_parser* parser) {
    return static_cast<ProxyRequestParser*>(parser->data);
}

} // namespace

QList<QByteArray> ProxyRequestHead::values(QByteArrayView name) const {
    QList<QByteArray> result;
    for (const HeaderField& field : headers) {
        if (field.name.compare(name, Qt::CaseInsensitive) == 0)
            result.append(field.value);
    }
    return result;
}

ProxyRequestParser::ProxyRequestParser(qsizetype maxHeadBytes) : m_maxHeadBytes(maxHeadBytes) {
    http_parser_init(&m_parser, HTTP_REQUEST);
    m_parser.data = this;
    std::memset(&m_settings, 0, sizeof m_settings);
    m_settings.on_url = &ProxyRequestParser::onUrl;
    m_settings.on_header_field = &ProxyRequestParser::onHeaderField;
    m_settings.on_header_value = &ProxyRequestParser::onHeaderValue;
    m_settings.on_headers_complete = &ProxyRequestParser::onHeadersComplete;
    m_settings.on_body = &ProxyRequestParser::onBody;
    m_settings.on_message_complete = &ProxyRequestParser::onMessageComplete;
}

qsizetype ProxyRequestParser::feed(const char* data, qsizetype size, QByteArray* body) {
    if (m_state == State::Complete || m_state == State::Error || size <= 0)
        return 0;
    const bool inHead = m_state == State::Head;
    m_bodyOut = body;
    const size_t parsed = http_parser_execute(&m_parser, &m_settings, data, size_t(size));
    m_bodyOut = nullptr;
    const http_errno error = HTTP_PARSER_ERRNO(&m_parser);
    if (error == HPE_PAUSED) {
        // Paused by onHeadersComplete / onMessageComplete; resume for the next phase.
        http_parser_pause(&m_parser, 0);
    } else if (error != HPE_OK) {
        m_state = State::Error;
        m_headTooLarge = error == HPE_HEADER_OVERFLOW;
        m_error = QString::fromLatin1(http_errno_description(error));
        return qsizetype(parsed);
    }
    if (inHead) {
        m_headBytes += qsizetype(parsed);
        if (m_headBytes > m_maxHeadBytes) {
            m_state = State::Error;
            m_headTooLarge = true;
            m_error = QStringLiteral("request head longer than %1 bytes").arg(m_maxHeadBytes);
        }
    }
    return qsizetype(parsed);
}

int ProxyRequestParser::onUrl(http_parser* parser, const char* at, size_t length) {
    self(parser)->m_head.target.append(at, qsizetype(length));
    return 0;
}

int ProxyRequestParser::onHeaderField(http_parser* parser, const char* at, size_t length) {
    ProxyRequestParser* p = self(parser);
    if (p->m_lastWasValue || p->m_head.headers.isEmpty())
        p->m_head.headers.append(HeaderField{});
    p->m_head.headers.last().name.append(at, qsizetype(length));
    p->m_lastWasValue = false;
    return 0;
}

int ProxyRequestParser::onHeaderValue(http_parser* parser, const char* at, size_t length) {
    ProxyRequestParser* p = self(parser);
    if (p->m_head.headers.isEmpty())
        return 1;
    p->m_head.headers.last().value.append(at, qsizetype(length));
    p->m_lastWasValue = true;
    return 0;
}

int ProxyRequestParser::onHeadersComplete(http_parser* parser) {
    ProxyRequestParser* p = self(parser);
    ProxyRequestHead& head = p->m_head;
    head.method = http_method_str(static_cast<http_method>(parser->method));
    head.versionMajor = parser->http_major;
    head.versionMinor = parser->http_minor;
    head.chunked = (parser->flags & F_CHUNKED) != 0;
    head.hasContentLength = (parser->flags & F_CONTENTLENGTH) != 0;
    head.upgrade = parser->upgrade != 0;
    for (HeaderField& field : head.headers)
        field.value = field.value.trimmed();
    p->m_state = State::Body;
    http_parser_pause(parser, 1);
    return 0;
}

int ProxyRequestParser::onBody(http_parser* parser, const char* at, size_t length) {
    ProxyRequestParser* p = self(parser);
    if (p->m_bodyOut)
        p->m_bodyOut->append(at, qsizetype(length));
    return 0;
}

int ProxyRequestParser::onMessageComplete(http_parser* parser) {
    self(parser)->m_state = State::Complete;
    http_parser_pause(parser, 1);
    return 0;
}

} // namespace runbox::egress
