#include "support/FileApiRaw.h"

#include "shared/Crypto.h"
#include "shared/RequestSigner.h"

#include <QDateTime>

namespace runbox::testsupport {

std::unique_ptr<RawHttpConnection> FileApiRaw::start(const QByteArray& method,
                                                     const QByteArray& target,
                                                     const HeaderList& extraHeaders,
                                                     const QByteArray& body,
                                                     const QByteArray& signedBodySha256) const {
    auto c = std::make_unique<RawHttpConnection>();
    if (!c->connectTo(m_port))
        return nullptr;
    HeaderList headers = RequestSigner::headersForHash(
        m_token, method, target,
        signedBodySha256.isEmpty() ? crypto::sha256Hex(body) : signedBodySha256,
        QDateTime::currentMSecsSinceEpoch());
    headers += extraHeaders;
    c->send(buildRequest(method, target, headers, body), 60000);
    return c;
}

RawHttpResponse FileApiRaw::send(const QByteArray& method, const QByteArray& target,
                                 const HeaderList& extraHeaders, const QByteArray& body,
                                 const QByteArray& signedBodySha256, int timeoutMs) const {
    auto c = start(method, target, extraHeaders, body, signedBodySha256);
    return c ? c->readResponse(timeoutMs) : RawHttpResponse{};
}

RawHttpResponse FileApiRaw::put(const QByteArray& target, const QByteArray& body) const {
    auto c = startPut(target, body);
    return c ? c->readResponse(30000) : RawHttpResponse{};
}

std::unique_ptr<RawHttpConnection> FileApiRaw::startPut(const QByteArray& target,
                                                        const QByteArray& body) const {
    const QByteArray hash = crypto::sha256Hex(body);
    return start("PUT", target, {{"X-Runbox-Content-SHA256", hash}}, body, hash);
}

} // namespace runbox::testsupport
