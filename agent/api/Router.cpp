#include "agent/api/Router.h"

#include <QRegularExpression>

namespace runbox::api {

void Router::add(const QByteArray& method, const QString& pattern, RouteHandler handler) {
    QStringList segments = pattern.split('/', Qt::SkipEmptyParts);
    QString rest;
    if (!segments.isEmpty() && segments.last().startsWith('{') &&
        segments.last().endsWith(QLatin1String("...}"))) {
        rest = segments.takeLast().mid(1);
        rest.chop(4);
    }
    m_routes.append(Route{method, pattern, segments, rest, std::move(handler), false});
}

void Router::addStreaming(const QByteArray& method, const QString& pattern, RouteHandler handler) {
    add(method, pattern, std::move(handler));
    m_routes.last().streamsBody = true;
}

const Router::Route* Router::find(const QByteArray& method, const QByteArray& rawPath,
                                  PathParams* params, bool* pathMatched,
                                  const Route** anyMethod) const {
    static const QRegularExpression paramValue(QStringLiteral("^[A-Za-z0-9._:-]{1,128}$"));
    *pathMatched = false;
    if (!rawPath.startsWith('/'))
        return nullptr;
    const QStringList segments = QString::fromLatin1(rawPath.mid(1)).split('/');
    for (const Route& route : m_routes) {
        const bool hasRest = !route.restName.isEmpty();
        if (hasRest ? segments.size() < route.segments.size()
                    : segments.size() != route.segments.size())
            continue;
        PathParams captured;
        bool ok = true;
        for (qsizetype i = 0; i < route.segments.size() && ok; ++i) {
            const QString& want = route.segments[i];
            if (want.startsWith('{') && want.endsWith('}')) {
                ok = paramValue.match(segments[i]).hasMatch();
                captured.insert(want.mid(1, want.size() - 2), segments[i]);
            } else {
                ok = want == segments[i];
            }
        }
        if (!ok)
            continue;
        if (hasRest)
            captured.insert(route.restName, segments.mid(route.segments.size()).join('/'));
        *pathMatched = true;
        if (anyMethod && !*anyMethod)
            *anyMethod = &route;
        if (route.method == method || (method == "HEAD" && route.method == "GET")) {
            *params = captured;
            return &route;
        }
    }
    return nullptr;
}

const RouteHandler* Router::match(const QByteArray& method, const QByteArray& rawPath,
                                  PathParams* params, bool* pathMatched) const {
    const Route* route = find(method, rawPath, params, pathMatched);
    return route ? &route->handler : nullptr;
}

bool Router::streamsBody(const QByteArray& method, const QByteArray& rawPath) const {
    PathParams params;
    bool pathMatched = false;
    const Route* route = find(method, rawPath, &params, &pathMatched);
    return route && route->streamsBody;
}

QString Router::pattern(const QByteArray& method, const QByteArray& rawPath) const {
    PathParams params;
    bool pathMatched = false;
    const Route* other = nullptr;
    const Route* route = find(method, rawPath, &params, &pathMatched, &other);
    if (!route)
        route = other;
    return route ? route->pattern : QString();
}

} // namespace runbox::api
