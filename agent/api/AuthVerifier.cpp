#include "agent/api/AuthVerifier.h"

#include "shared/Crypto.h"
#include "shared/RequestSigner.h"

#include <QRegularExpression>

namespace runbox::api {

namespace {
constexpr qsizetype kMaxRememberedNonces = 1'000'000;

ApiError unauthorized(const char* code, const QString& message) {
    return ApiError{401, QLatin1String(code), message};
}

} // namespace

AuthVerifier::AuthVerifier(QByteArray agentToken, qint64 windowMs,
                           std::function<QByteArray(const QString&)> workspaceNonce)
    : m_agentToken(std::move(agentToken)), m_windowMs(windowMs),
      m_workspaceNonce(std::move(workspaceNonce)) {}

std::optional<ApiError> AuthVerifier::identify(const QByteArray& token, Principal* who) const {
    if (token.isEmpty())
        return unauthorized("unauthorized", QStringLiteral("missing bearer token"));
    if (crypto::constantTimeEquals(token, m_agentToken)) {
        who->kind = Principal::Kind::Agent;
        who->tokenId = QStringLiteral("agent");
        return std::nullopt;
    }
    QString wsId;
    QByteArray nonce;
    const QByteArray recorded =
        WorkspaceToken::split(token, &wsId, &nonce) ? m_workspaceNonce(wsId) : QByteArray();
    if (recorded.isEmpty() || !crypto::constantTimeEquals(recorded, nonce) ||
        !crypto::constantTimeEquals(WorkspaceToken::derive(m_agentToken, wsId, nonce), token))
        return unauthorized("unauthorized", QStringLiteral("unknown or revoked token"));
    who->kind = Principal::Kind::Workspace;
    who->workspaceId = wsId;
    who->tokenId = QStringLiteral("ws:") + wsId;
    return std::nullopt;
}

std::optional<ApiError> AuthVerifier::checkStamp(const http::HttpRequest& request, qint64 nowMs,
                                                 qint64* ts) const {
    const QByteArray tsText = request.header("x-runbox-timestamp");
    bool ok = false;
    *ts = tsText.toLongLong(&ok);
    static const QRegularExpression digits(QStringLiteral("^[0-9]{1,16}$"));
    if (!ok || !digits.match(QString::fromLatin1(tsText)).hasMatch())
        return unauthorized("signature_invalid",
                            QStringLiteral("missing or malformed X-Runbox-Timestamp"));
    if (!crypto::isLowerHex(request.header("x-runbox-nonce"), 32))
        return unauthorized("signature_invalid",
                            QStringLiteral("X-Runbox-Nonce must be 32 lowercase hex characters"));
    if (!crypto::isLowerHex(request.header("x-runbox-signature"), 64))
        return unauthorized(
            "signature_invalid",
            QStringLiteral("X-Runbox-Signature must be 64 lowercase hex characters"));
    if (*ts < nowMs - m_windowMs || *ts > nowMs + m_windowMs)
        return unauthorized(
            "signature_expired",
            QStringLiteral("timestamp is outside the ±%1 ms window (check the clock)")
                .arg(m_windowMs));
    return std::nullopt;
}

std::optional<ApiError> AuthVerifier::verifyHead(const http::HttpRequest& request, qint64 nowMs,
                                                 Principal* principal) const {
    Principal who;
    if (auto err = identify(bearerToken(request), &who))
        return err;
    qint64 ts = 0;
    if (auto err = checkStamp(request, nowMs, &ts))
        return err;
    *principal = who;
    return std::nullopt;
}

std::optional<ApiError> AuthVerifier::verify(const http::HttpRequest& request, qint64 nowMs,
                                             Principal* principal,
                                             const QByteArray& bodySha256Hex) {
    const QByteArray token = bearerToken(request);
    Principal who;
    if (auto err = identify(token, &who))
        return err;
    qint64 ts = 0;
    if (auto err = checkStamp(request, nowMs, &ts))
        return err;
    const QByteArray nonce = request.header("x-runbox-nonce");
    const QByteArray bodyHash =
        bodySha256Hex.isEmpty() ? crypto::sha256Hex(request.body) : bodySha256Hex;
    const QByteArray expected =
        RequestSigner::sign(token, request.method, request.rawTarget, ts, nonce, bodyHash);
    if (!crypto::constantTimeEquals(expected, request.header("x-runbox-signature")))
        return unauthorized("signature_invalid",
                            QStringLiteral("request signature does not match"));
    if (!rememberNonce(nonce, nowMs))
        return unauthorized("replayed_request", QStringLiteral("this nonce was already used"));
    *principal = who;
    return std::nullopt;
}

QByteArray AuthVerifier::bearerToken(const http::HttpRequest& request) {
    const QByteArray authorization = request.header("authorization");
    if (!authorization.startsWith("Bearer ") || request.headerCount("authorization") != 1)
        return {};
    return authorization.mid(7).trimmed();
}

bool AuthVerifier::rememberNonce(const QByteArray& nonce, qint64 nowMs) {
    if (nowMs >= m_nextSweepMs || m_seenNonces.size() > kMaxRememberedNonces) {
        for (auto it = m_seenNonces.begin(); it != m_seenNonces.end();)
            it = it.value() < nowMs ? m_seenNonces.erase(it) : std::next(it);
        m_nextSweepMs = nowMs + 1000;
    }
    if (m_seenNonces.contains(nonce))
        return false;
    if (m_seenNonces.size() > kMaxRememberedNonces)
        return false; // refuse rather than forget a nonce that is still inside the window
    // A nonce must be remembered for as long as its timestamp could still be accepted.
    m_seenNonces.insert(nonce, nowMs + 2 * m_windowMs);
    return true;
}

} // namespace runbox::api
