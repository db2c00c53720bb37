#pragma once

#include "agent/http/HttpRequest.h"
#include "agent/workspace/WorkspaceToken.h"
#include "shared/ApiError.h"

#include <QByteArray>
#include <QHash>
#include <QString>

#include <functional>
#include <optional>

namespace runbox::api {

/// Who a verified request speaks for.
struct Principal {
    enum class Kind { Agent, Workspace };
    Kind kind = Kind::Agent;
    QString workspaceId; ///< for Kind::Workspace
    QString tokenId;     ///< short, non-secret id for audit trails ("agent" or "ws:<id>")

    bool isAgent() const { return kind == Kind::Agent; }
    /// May this principal act on workspace @p id? The agent may act on all.
    bool mayUseWorkspace(const QString& id) const { return isAgent() || workspaceId == id; }
};

using workspace::WorkspaceToken;

/// Verifies request auth (docs/contracts.md "Request signing"): bearer token, `X-Runbox-Timestamp`
/// within ±window, a fresh 128-bit `X-Runbox-Nonce` (replays inside the window are refused), and
/// `X-Runbox-Signature` over method, raw target, timestamp, nonce and the body's SHA-256 —
/// all compared in constant time, all before any side effect. Failures are 401 with codes
/// unauthorized, signature_expired, signature_invalid, replayed_request.
class AuthVerifier final {
public:
    /// @p workspaceNonce: the nonce recorded for a workspace id, or empty when no such
    /// workspace exists (its token is then refused).
    AuthVerifier(QByteArray agentToken, qint64 windowMs,
                 std::function<QByteArray(const QString&)> workspaceNonce);

    /// Verifies @p request at time @p nowMs (ms since epoch). @p bodySha256Hex: pass the
    /// digest when the body was streamed elsewhere; empty means hash request.body.
    std::optional<ApiError> verify(const http::HttpRequest& request, qint64 nowMs,
                                   Principal* principal, const QByteArray& bodySha256Hex = {});

    /// The checks of verify() that need no body, for a request head whose body has not been
    /// read yet: the bearer token (agent or a live workspace token) and the shape and ±window
    /// of X-Runbox-Timestamp, X-Runbox-Nonce and X-Runbox-Signature. Nothing is remembered
    /// (the nonce is recorded only by verify()). Same 401 codes as verify(); on success
    /// @p principal says who the token speaks for.
    std::optional<ApiError> verifyHead(const http::HttpRequest& request, qint64 nowMs,
                                       Principal* principal) const;

    /// The token of `Authorization: Bearer <token>` (empty when absent or repeated): once
    /// verify() accepted the request, the key that signed it (chunk-signed uploads chain
    /// their chunk signatures under the same key).
    static QByteArray bearerToken(const http::HttpRequest& request);

private:
    /// Who @p token is (agent or workspace); 401 unauthorized when it is neither.
    std::optional<ApiError> identify(const QByteArray& token, Principal* who) const;
    /// The timestamp, nonce and signature headers' shape and the window; @p ts gets the stamp.
    std::optional<ApiError> checkStamp(const http::HttpRequest& request, qint64 nowMs,
                                       qint64* ts) const;
    bool rememberNonce(const QByteArray& nonce, qint64 nowMs);

    QByteArray m_agentToken;
    qint64 m_windowMs;
    std::function<QByteArray(const QString&)> m_workspaceNonce;
    QHash<QByteArray, qint64> m_seenNonces; ///< nonce → expiry (ms)
    qint64 m_nextSweepMs = 0;
};

} // namespace runbox::api
