#include "agent/api/MetricsEndpoint.h"

#include "agent/api/AuthVerifier.h"
#include "agent/config/StateDir.h"
#include "agent/metrics/MetricsRegistry.h"
#include "shared/Crypto.h"

#include <QFile>

#include <sys/stat.h>

namespace runbox::api {

MetricsEndpoint::MetricsEndpoint(QString stateDir, const metrics::MetricsRegistry* registry)
    : m_stateDir(std::move(stateDir)), m_registry(registry) {}

QByteArray MetricsEndpoint::currentToken() {
    const config::StateDir state(m_stateDir);
    const QByteArray path = QFile::encodeName(state.filePath(QStringLiteral("metrics.token")));
    struct stat st {};
    Identity now;
    if (::stat(path.constData(), &st) == 0)
        now = Identity{st.st_dev, st.st_ino, st.st_size,
                       qint64(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
    if (now == m_identity && !m_token.isEmpty())
        return m_token;
    // Changed, new or gone (then made again: deleting the file is a rotation too).
    QString error;
    m_token = state.loadOrCreateMetricsToken(&error);
    if (::stat(path.constData(), &st) == 0)
        m_identity = Identity{st.st_dev, st.st_ino, st.st_size,
                              qint64(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
    return m_token; // empty when unreadable or readable by others: every scrape is refused
}

std::optional<ApiError> MetricsEndpoint::check(const http::HttpRequest& request) {
    if (request.method != "GET" && request.method != "HEAD")
        return ApiError{405, QStringLiteral("method_not_allowed"),
                        QStringLiteral("/metrics answers GET only")};
    const QByteArray presented = AuthVerifier::bearerToken(request);
    if (presented.isEmpty())
        return ApiError{401, QStringLiteral("unauthorized"),
                        QStringLiteral("missing bearer token: /metrics takes "
                                       "\"Authorization: Bearer <token>\" with the token of "
                                       "metrics.token in the agent's state directory")};
    const QByteArray expected = currentToken();
    if (expected.isEmpty() || !crypto::constantTimeEquals(presented, expected))
        return ApiError{401, QStringLiteral("unauthorized"),
                        QStringLiteral("not the metrics token (metrics.token in the agent's "
                                       "state directory; the agent token is not accepted here)")};
    return std::nullopt;
}

void MetricsEndpoint::handle(http::HttpExchange* exchange) {
    if (auto err = check(exchange->request()))
        return exchange->replyError(*err);
    exchange->reply(200, m_registry ? m_registry->exposition() : QByteArray(),
                    metrics::MetricsRegistry::contentType());
}

} // namespace runbox::api
