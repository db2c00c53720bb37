#include "agent/egress/ProxyRequestParser.h"

namespace runbox::egress {

using Next = http::HttpParser::Next;

QList<QByteArray> ProxyRequestHead::values(QByteArrayView name) const {
    QList<QByteArray> result;
    for (const HeaderField& field : headers) {
        if (field.name.compare(name, Qt::CaseInsensitive) == 0)
            result.append(field.value);
    }
    return result;
}

ProxyRequestParser::ProxyRequestParser(qsizetype maxHeadBytes)
    : m_parser(http::HttpParser::Mode::Request, 0,
               {{},
                [this](http::HttpParser::Head& h) {
                    m_head.method = h.method;
                    m_head.target = std::move(h.target);
                    m_head.versionMajor = h.versionMajor;
                    m_head.versionMinor = h.versionMinor;
                    m_head.chunked = h.chunked;
                    m_head.hasContentLength = h.hasContentLength;
                    m_head.upgrade = h.upgrade;
                    for (const auto& [name, value] : std::as_const(h.headers))
                        m_head.headers.append(HeaderField{name, value.trimmed()});
                    m_state = State::Body;
                    return Next::Pause; // the gateway decides before any body byte
                },
                [this](const char* at, qsizetype length) {
                    if (m_bodyOut)
                        m_bodyOut->append(at, length);
                    return Next::Continue;
                },
                [this] {
                    m_state = State::Complete;
                    return Next::Pause;
                }}),
      m_maxHeadBytes(maxHeadBytes) {}

qsizetype ProxyRequestParser::feed(const char* data, qsizetype size, QByteArray* body) {
    if (m_state == State::Complete || m_state == State::Error || size <= 0)
        return 0;
    const bool inHead = m_state == State::Head;
    m_bodyOut = body;
    const qsizetype parsed = m_parser.feed(data, size);
    m_bodyOut = nullptr;
    // Paused after the head or the message: the next feed() goes on with the next phase.
    if (m_parser.failed()) {
        m_state = State::Error;
        m_headTooLarge = m_parser.headTooLarge(); // HPE_HEADER_OVERFLOW (no bound of its own)
        m_error = m_parser.errorText();
        return parsed;
    }
    if (inHead) {
        m_headBytes += parsed;
        if (m_headBytes > m_maxHeadBytes) {
            m_state = State::Error;
            m_headTooLarge = true;
            m_error = QStringLiteral("request head longer than %1 bytes").arg(m_maxHeadBytes);
        }
    }
    return parsed;
}

} // namespace runbox::egress
