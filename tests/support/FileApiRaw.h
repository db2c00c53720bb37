#pragma once

#include "support/RawHttp.h"

#include <QByteArray>

#include <memory>

namespace runbox::testsupport {

/// Signed file-API requests written byte for byte (RawHttp), for targets a URL library would
/// normalise (`..`, `%2e`, `//`), chunked or head-only uploads, uploads left in flight, and
/// signatures over a declared body hash (docs/upload-integrity.md).
class FileApiRaw final {
public:
    FileApiRaw(quint16 port, QByteArray token) : m_port(port), m_token(std::move(token)) {}

    /// @p method @p target with the signature headers over @p signedBodySha256 (default: the
    /// hash of @p body) plus @p extraHeaders, then @p body as is; reads one response.
    RawHttpResponse send(const QByteArray& method, const QByteArray& target,
                         const HeaderList& extraHeaders = {}, const QByteArray& body = {},
                         const QByteArray& signedBodySha256 = {}, int timeoutMs = 30000) const;
    /// A streamed upload: PUT with X-Runbox-Content-SHA256 and Content-Length of @p body.
    RawHttpResponse put(const QByteArray& target, const QByteArray& body) const;
    /// The same PUT, sent but not answered yet (readResponse() later): requests in flight
    /// together. Null when it cannot connect.
    std::unique_ptr<RawHttpConnection> startPut(const QByteArray& target,
                                                const QByteArray& body) const;

private:
    std::unique_ptr<RawHttpConnection> start(const QByteArray& method, const QByteArray& target,
                                             const HeaderList& extraHeaders, const QByteArray& body,
                                             const QByteArray& signedBodySha256) const;
    quint16 m_port;
    QByteArray m_token;
};

} // namespace runbox::testsupport
