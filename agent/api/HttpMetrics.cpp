#include "agent/api/HttpMetrics.h"

#include "agent/http/HttpExchange.h"

#include <memory>

namespace runbox::api {

namespace {
/// What a route's bodies count as (docs/metrics.md "HTTP").
enum class Transfer { None, Upload, Download, Stream };

Transfer transferOf(const QByteArray& method, const QString& route) {
    if (route.endsWith(QLatin1String("/files/{path...}")))
        return method == "PUT"   ? Transfer::Upload
               : method == "GET" ? Transfer::Download
                                 : Transfer::None;
    if (route.endsWith(QLatin1String("/exec")) || route.endsWith(QLatin1String("/log")))
        return Transfer::Stream;
    return Transfer::None;
}
} // namespace

HttpMetrics::HttpMetrics(metrics::MetricsRegistry* registry) {
    if (!registry)
        return;
    m_requests = registry->addCounter(
        QStringLiteral("runbox_http_requests_total"),
        QStringLiteral("HTTP requests answered by the API, by route pattern, method and status."),
        {QStringLiteral("route"), QStringLiteral("method"), QStringLiteral("code")});
    m_uploaded = registry->addCounter(
        QStringLiteral("runbox_file_upload_bytes_total"),
        QStringLiteral("Request body bytes received by file uploads (PUT of the file API)."));
    m_downloaded = registry->addCounter(
        QStringLiteral("runbox_file_download_bytes_total"),
        QStringLiteral("Response body bytes sent by file downloads (GET of the file API)."));
    m_streamed = registry->addCounter(
        QStringLiteral("runbox_stream_bytes_total"),
        QStringLiteral("Response body bytes of sync exec streams and execution log reads."));
}

QString HttpMetrics::methodLabel(const QByteArray& method) {
    static const QList<QByteArray> known{"GET",     "HEAD",    "POST",  "PUT",  "DELETE",
                                         "OPTIONS", "CONNECT", "PATCH", "TRACE"};
    return known.contains(method) ? QString::fromLatin1(method) : QStringLiteral("other");
}

void HttpMetrics::count(const QByteArray& method, const QString& route, int status) {
    m_requests.inc({route.isEmpty() ? QStringLiteral("unmatched") : route, methodLabel(method),
                    status > 0 ? QString::number(status) : QStringLiteral("none")});
}

void HttpMetrics::watch(http::HttpExchange* exchange, const QString& route) {
    auto pending = std::make_shared<bool>(true);
    const auto record = [this, exchange, route, pending] {
        if (!*pending)
            return;
        *pending = false;
        const http::HttpRequest& req = exchange->request();
        count(req.method, route, exchange->status());
        switch (transferOf(req.method, route)) {
        case Transfer::Upload:
            m_uploaded.inc({},
                           double(exchange->body().isStreamed() ? exchange->body().bytesReceived()
                                                                : req.body.size()));
            break;
        case Transfer::Download:
            m_downloaded.inc({}, double(exchange->bodyBytesWritten()));
            break;
        case Transfer::Stream:
            m_streamed.inc({}, double(exchange->bodyBytesWritten()));
            break;
        case Transfer::None:
            break;
        }
    };
    QObject::connect(exchange, &http::HttpExchange::finished, exchange, record);
    QObject::connect(exchange, &http::HttpExchange::clientGone, exchange, record);
    QObject::connect(exchange, &http::HttpExchange::takeOverRequested, exchange, record);
}

} // namespace runbox::api
