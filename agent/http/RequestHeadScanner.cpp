#include "agent/http/RequestHeadScanner.h"

#include <QList>

namespace runbox::http {

namespace {
/// Empty lines tolerated before a request line (RFC 9112 §2.2: "at least one"; a keep-alive
/// client may send a stray CRLF after a body).
constexpr int kMaxLeadingEmptyLines = 4;

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}
} // namespace

void RequestHeadScanner::reset() {
    m_requestLine.clear();
    m_lineBytes = 0;
    m_lines = 0;
    m_leadingEmpty = 0;
    m_afterCr = false;
    m_done = false;
    m_error = ApiError{};
}

RequestHeadScanner::Verdict RequestHeadScanner::invalid(int status, const char* code,
                                                        const QString& message) {
    m_error = ApiError{status, QLatin1String(code), message};
    return Verdict::Invalid;
}

RequestHeadScanner::Verdict RequestHeadScanner::scan(const char* data, qsizetype size,
                                                     qsizetype* consumed) {
    for (qsizetype i = 0; i < size; ++i) {
        const char c = data[i];
        if (m_afterCr) {
            m_afterCr = false;
            if (c != '\n')
                return invalid(400, "bad_request",
                               QStringLiteral("a CR in the request head is not followed by LF "
                                              "(RFC 9112 §2.2)"));
            const Verdict v = endOfLine();
            if (v == Verdict::HeadEnd) {
                *consumed = i + 1;
                m_done = true;
            }
            if (v != Verdict::NeedMore)
                return v;
            continue;
        }
        if (c == '\r') {
            m_afterCr = true;
            continue;
        }
        if (c == '\n')
            return invalid(400, "bad_request",
                           QStringLiteral("the request head has a line ending in a bare LF; "
                                          "lines end in CRLF (RFC 9112 §2.2)"));
        if (m_lineBytes == 0 && m_lines > 0 && (c == ' ' || c == '\t'))
            return invalid(400, "bad_request",
                           QStringLiteral("obsolete line folding in a header field "
                                          "(RFC 9112 §5.2)"));
        ++m_lineBytes;
        if (m_lines == 0) {
            if (m_lineBytes > m_maxLine)
                return invalid(431, "headers_too_large",
                               QStringLiteral("request line exceeds %1 bytes").arg(m_maxLine));
            m_requestLine.append(c);
        }
    }
    return Verdict::NeedMore;
}

RequestHeadScanner::Verdict RequestHeadScanner::endOfLine() {
    const qint64 length = m_lineBytes;
    m_lineBytes = 0;
    if (length == 0) {
        if (m_lines > 0)
            return Verdict::HeadEnd;
        if (++m_leadingEmpty > kMaxLeadingEmptyLines)
            return invalid(400, "bad_request",
                           QStringLiteral("too many empty lines before the request line"));
        return Verdict::NeedMore;
    }
    ++m_lines;
    return m_lines == 1 ? checkRequestLine() : Verdict::NeedMore;
}

RequestHeadScanner::Verdict RequestHeadScanner::checkRequestLine() {
    // RFC 9112 §3: request-line = method SP request-target SP HTTP-version, single spaces.
    const QList<QByteArray> parts = m_requestLine.split(' ');
    bool shaped = parts.size() == 3;
    for (const QByteArray& p : parts)
        shaped = shaped && !p.isEmpty();
    // §2.3: HTTP-version = "HTTP" "/" DIGIT "." DIGIT (case-sensitive).
    const QByteArray version = shaped ? parts[2] : QByteArray();
    if (!shaped || version.size() != 8 || !version.startsWith("HTTP/") || !isDigit(version[5]) ||
        version[6] != '.' || !isDigit(version[7]))
        return invalid(400, "bad_request",
                       QStringLiteral("the request line must be METHOD SP TARGET SP HTTP/1.1 "
                                      "(or HTTP/1.0), RFC 9112 §3"));
    if (version != "HTTP/1.1" && version != "HTTP/1.0")
        return invalid(
            505, "http_version_not_supported",
            QStringLiteral("%1 is not supported; use HTTP/1.1").arg(QString::fromLatin1(version)));
    return Verdict::NeedMore;
}

} // namespace runbox::http
