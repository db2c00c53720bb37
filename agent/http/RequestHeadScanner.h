#pragma once

#include "shared/ApiError.h"

#include <QByteArray>

namespace runbox::http {

/// Strict checks on the raw bytes of one request head, where http-parser 2.9 is lenient and a
/// front end that reads the same bytes differently could smuggle a request past us (RFC 9112):
///
/// - every line of the head ends in CRLF; a bare LF or a bare CR → 400 (§2.2);
/// - no obs-fold continuation line (a header line starting with SP or HTAB) → 400 (§5.2);
/// - the request line is exactly `method SP request-target SP HTTP-version` (§3, §2.3), else
///   400 (http-parser takes `GET /` as HTTP/0.9); a version other than HTTP/1.0 or HTTP/1.1
///   → 505 (RFC 9110 §15.6.6);
/// - at most a few empty lines before the request line (§2.2 lets a server ignore them).
///
/// The connection feeds it the bytes of a head before http-parser sees them; it stops at the
/// empty line that ends the head and says how many bytes the head took.
class RequestHeadScanner final {
public:
    enum class Verdict {
        NeedMore, ///< every byte given is part of a head that is not complete yet
        HeadEnd,  ///< the head ended (its last byte is the LF of the empty line)
        Invalid,  ///< the head breaks a rule above: error() says which, with its status
    };

    /// @p maxRequestLineBytes: a longer request line is refused with 431, like a long head.
    explicit RequestHeadScanner(qint64 maxRequestLineBytes) : m_maxLine(maxRequestLineBytes) {}

    /// Starts over for the next request.
    void reset();
    /// Scans the next @p size bytes of the head at @p data. @p consumed (HeadEnd only): how
    /// many of them belong to the head. After HeadEnd or Invalid, call reset() before scanning
    /// another head.
    Verdict scan(const char* data, qsizetype size, qsizetype* consumed);
    /// The head was scanned to its end (HeadEnd returned, no reset() since).
    bool isDone() const { return m_done; }
    /// Why the head was refused (after Invalid): 400 bad_request, 431 headers_too_large or
    /// 505 http_version_not_supported.
    const ApiError& error() const { return m_error; }

private:
    Verdict endOfLine();
    Verdict checkRequestLine();
    Verdict invalid(int status, const char* code, const QString& message);

    qint64 m_maxLine;
    QByteArray m_requestLine;
    qint64 m_lineBytes = 0; ///< bytes of the current line, its CRLF not counted
    int m_lines = 0;        ///< complete non-empty lines so far (0: no request line yet)
    int m_leadingEmpty = 0; ///< empty lines before the request line
    bool m_afterCr = false; ///< the last byte was a CR
    bool m_done = false;
    ApiError m_error;
};

} // namespace runbox::http
