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
///
/// A pattern may end with one rest parameter, `{name...}`: it captures the rest of the raw
/// path after the preceding '/' — zero or more segments, slashes included, neither decoded nor
/// checked (the route validates it, e.g. WorkspacePath::fromUrlTail). "/files" and "/files/"
/// both capture "". Its value holds the raw bytes as Latin-1: use toLatin1() to get them back.
class Router final {
public:
    void add(const QByteArray& method, const QString& pattern, RouteHandler handler);
    /// Like add(), for a route that takes its request body as a stream
    /// (http::RequestHandler::wantsBodyStream; e.g. file uploads).
    void addStreaming(const QByteArray& method, const QString& pattern, RouteHandler handler);
    /// Finds the route. Returns the handler or null; @p pathMatched tells 404 from 405.
    const RouteHandler* match(const QByteArray& method, const QByteArray& rawPath,
                              PathParams* params, bool* pathMatched) const;
    /// True when @p method + @p rawPath match a route added with addStreaming().
    bool streamsBody(const QByteArray& method, const QByteArray& rawPath) const;
    /// The pattern of the route @p rawPath matches, as it was added ("/v1/workspaces/{id}/exec"):
    /// the one for @p method, else the first with another method (a 405); empty for no route (a
    /// 404). A bounded label for metrics (docs/metrics.md), never the raw path.
    QString pattern(const QByteArray& method, const QByteArray& rawPath) const;

private:
    struct Route {
        QByteArray method;
        QString pattern;      ///< as added
        QStringList segments; ///< without the rest parameter
        QString restName;     ///< name of a trailing `{name...}`, empty if none
        RouteHandler handler;
        bool streamsBody = false;
    };
    /// @p anyMethod (optional) gets the first route whose path matches, whatever its method.
    const Route* find(const QByteArray& method, const QByteArray& rawPath, PathParams* params,
                      bool* pathMatched, const Route** anyMethod = nullptr) const;
    QList<Route> m_routes;
};

} // namespace runbox::api
