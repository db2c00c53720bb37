#pragma once

#include "agent/metrics/MetricsRegistry.h"

#include <QByteArray>
#include <QString>

namespace runbox::http {
class HttpExchange;
}

namespace runbox::api {

/// The HTTP API's metrics (docs/metrics.md "HTTP"): `runbox_http_requests_total{route,method,
/// code}` and the bytes of file uploads, file downloads and streamed responses (sync exec
/// streams, execution logs). `route` is the Router pattern the request matched
/// ("/v1/workspaces/{id}/files/{path...}"), "unmatched" for none: never the raw path, so the
/// label's values are the routes the agent has. `method` is one of the methods HTTP defines
/// (else "other"); `code` the response status, "none" when the client left before any.
/// Requests the HTTP layer refuses before they reach the API (malformed heads, 408, 431,
/// the connection cap's 503) are not counted.
class HttpMetrics final {
public:
    /// @p registry may be null: nothing is counted.
    explicit HttpMetrics(metrics::MetricsRegistry* registry);

    /// Counts @p exchange, which matched @p route, once its response ends (finished, client
    /// gone, or connection taken over: 101), with the bytes it carried.
    void watch(http::HttpExchange* exchange, const QString& route);
    /// Counts a request refused with @p status before a handler saw it (on its head).
    void count(const QByteArray& method, const QString& route, int status);

    /// @p method as the label writes it.
    static QString methodLabel(const QByteArray& method);

private:
    metrics::Counter m_requests;
    metrics::Counter m_uploaded;
    metrics::Counter m_downloaded;
    metrics::Counter m_streamed;
};

} // namespace runbox::api
