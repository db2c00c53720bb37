#pragma once

#include "agent/api/AuthVerifier.h"
#include "agent/http/HttpExchange.h"

#include <QList>
#include <QMap>
#include <QString>

#include <functional>

namespace runbox::api {

/// Path parameters captured by a route pattern, e.g. {"id": "w0123…"}.
using PathParams = QMap<QString, QString>;
using RouteHandler = std::function<void(http::HttpExchange*, const Principal&, const PathParams&)>;

/// Matches method + raw path against patterns like "/v1/workspaces/{id}/exec". Parameters match
/// one raw segment of [A-Za-z0-9._:-]; anything else does not match (so it is a 404, never a
/// decoded traversal). A path that matches with another method is a 405.
class Router final {
public:
    void add(const QByteArray& method, const QString& pattern, RouteHandler handler);
    /// Finds the route. Returns the handler or null; @p pathMatched tells 404 from 405.
    const RouteHandler* match(const QByteArray& method, const QByteArray& rawPath,
                              PathParams* params, bool* pathMatched) const;

private:
    struct Route {
        QByteArray method;
        QStringList segments;
        RouteHandler handler;
    };
    QList<Route> m_routes;
};

} // namespace runbox::api
