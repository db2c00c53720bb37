#include "agent/api/Router.h"

#include <QRegularExpression>

namespace runbox::api {

void Router::add(const QByteArray& method, const QString& pattern, RouteHandler handler) {
    m_routes.append(Route{method, pattern.split('/', Qt::SkipEmptyParts), std::move(handler)});
}

const RouteHandler* Router::match(const QByteArray& method, const QByteArray& rawPath,
                                  PathParams* params, bool* pathMatched) const {
    static const QRegularExpression paramValue(QStringLiteral("^[A-Za-z0-9._:-]{1,128}$"));
    *pathMatched = false;
    if (!rawPath.startsWith('/'))
        return nullptr;
    const QStringList segments = QString::fromLatin1(rawPath.mid(1)).split('/');
    for (const Route& route : m_routes) {
        if (route.segments.size() != segments.size())
            continue;
        PathParams captured;
        bool ok = true;
        for (qsizetype i = 0; i < segments.size() && ok; ++i) {
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
        *pathMatched = true;
        if (route.method == method || (method == "HEAD" && route.method == "GET")) {
            *params = captured;
            return &route.handler;
        }
    }
    return nullptr;
}

} // namespace runbox::api
