#pragma once

#include "agent/http/HttpExchange.h"
#include "shared/ApiError.h"

#include <QByteArray>
#include <QString>

#include <optional>

#include <sys/types.h>

namespace runbox::metrics {
class MetricsRegistry;
}

namespace runbox::api {

/// `GET /metrics` (docs/metrics.md, docs/contracts.md "Request signing"): the registry in the
/// Prometheus text exposition format, for the bearer of the read-only metrics token. Besides
/// `GET /health` the one route without a request signature (Prometheus cannot sign): it takes
/// `Authorization: Bearer <token>` with the token of `<state>/metrics.token`
/// (config::StateDir::loadOrCreateMetricsToken), compared in constant time (CRYPTO_memcmp).
/// The agent token and workspace tokens are not metrics tokens (401), and the metrics token
/// opens no other route (AuthVerifier knows nothing of it). The file is re-read whenever its
/// identity (device, inode, size, mtime) changed, so a rotated token
/// (`runbox-agent --rotate-metrics-token`) takes effect at the next scrape.
class MetricsEndpoint final {
public:
    /// @p registry may be null (then every authorised scrape is an empty exposition).
    MetricsEndpoint(QString stateDir, const metrics::MetricsRegistry* registry);

    /// The path the endpoint answers.
    static bool isMetricsPath(const QByteArray& rawPath) { return rawPath == "/metrics"; }

    /// The bearer check, on the request head (so a body is never read for a refused request):
    /// 401 `unauthorized` when the header is missing or repeated or the token is not the
    /// metrics token (also while `metrics.token` cannot be read), 405 `method_not_allowed` for
    /// anything but GET and HEAD.
    std::optional<ApiError> check(const http::HttpRequest& request);
    /// Answers the request: check(), then 200 with the exposition
    /// (`text/plain; version=0.0.4; charset=utf-8`).
    void handle(http::HttpExchange* exchange);

private:
    /// The token in force: the cached one, or the file read again when it changed.
    QByteArray currentToken();

    QString m_stateDir;
    const metrics::MetricsRegistry* m_registry;
    QByteArray m_token;
    struct Identity {
        dev_t device = 0;
        ino_t inode = 0;
        off_t size = -1;
        qint64 mtimeNs = -1;
        bool operator==(const Identity&) const = default;
    } m_identity;
};

} // namespace runbox::api
