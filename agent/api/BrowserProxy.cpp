#include "agent/api/BrowserProxy.h"

#include "agent/api/ApiService.h"
#include "agent/http/HttpExchange.h"
#include "agent/proxy/ProxyHeaders.h"

#include <QDateTime>

namespace runbox::api {

namespace {

constexpr char kQueryParameter[] = "runbox_proxy_token";

qint64 nowS() {
    return QDateTime::currentSecsSinceEpoch();
}

/// @p rawQuery without the `runbox_proxy_token` parameters (names compared decoded, as
/// HttpRequest::queryValue() found the token: `runbox%5Fproxy%5Ftoken` is one too).
QByteArray queryWithoutToken(const QByteArray& rawQuery) {
    QList<QByteArray> kept;
    for (const QByteArray& pair : rawQuery.split('&')) {
        QByteArray name = pair.left(pair.indexOf('='));
        name.replace('+', ' ');
        if (!pair.isEmpty() && QByteArray::fromPercentEncoding(name) != kQueryParameter)
            kept << pair;
    }
    return kept.join('&');
}

/// The port of a Host header value (RFC 9110 §7.2) when it is one (1 to 5 digits), else
/// @p fallback: the header is not signed, so nothing else of it may reach the URL handed out.
QByteArray portOfHost(const QByteArray& host, const QByteArray& fallback) {
    const qsizetype colon = host.lastIndexOf(':');
    const QByteArray port = colon < 0 ? QByteArray() : host.mid(colon + 1);
    bool digits = !port.isEmpty() && port.size() <= 5;
    for (char c : port)
        digits = digits && c >= '0' && c <= '9';
    return digits && port.toInt() <= 65535 ? port : fallback;
}

/// @p rawPath as a Location on the same origin: leading `/` and `\` collapsed into one `/`,
/// since `//host/…` or `/\host/…` would send the browser to another host (an open redirect).
QByteArray sameOriginPath(const QByteArray& rawPath) {
    qsizetype start = 0;
    while (start < rawPath.size() && (rawPath.at(start) == '/' || rawPath.at(start) == '\\'))
        ++start;
    return '/' + rawPath.mid(start);
}

} // namespace

BrowserProxy::BrowserProxy(AgentContext* context, Relay relay)
    : m_context(context), m_relay(std::move(relay)), m_tokens(context->agentToken) {}

std::optional<proxy::ProxyOrigin> BrowserProxy::originOf(const http::HttpRequest& head) const {
    if (head.headerCount("host") != 1)
        return std::nullopt;
    return proxy::ProxyOrigin::fromHost(head.header("host"), m_context->config.proxyDomain);
}

void BrowserProxy::mintToken(http::HttpExchange* ex, const Principal& who,
                             const QString& workspaceId) {
    const workspace::Workspace* ws = m_context->workspaces->find(workspaceId);
    if (!ws || !who.mayUseWorkspace(workspaceId))
        return ex->replyError(404, QStringLiteral("workspace_not_found"),
                              QStringLiteral("no workspace %1").arg(workspaceId));
    QJsonObject body;
    if (auto err = parseJsonObject(ex->request().body, &body))
        return ex->replyError(*err);
    for (auto it = body.begin(); it != body.end(); ++it)
        if (it.key() != QLatin1String("port") && it.key() != QLatin1String("ttlS"))
            return ex->replyError(400, QStringLiteral("invalid_request"),
                                  QStringLiteral("unknown field \"%1\"").arg(it.key()));
    const QJsonValue portValue = body.value(QLatin1String("port"));
    const int port =
        portValue.isDouble() && portValue.toDouble() == portValue.toInt() ? portValue.toInt() : 0;
    if (port < 1 || port > 65535)
        return ex->replyError(400, QStringLiteral("invalid_port"),
                              QStringLiteral("port must be a number from 1 to 65535"));
    const QJsonValue ttlValue = body.value(QLatin1String("ttlS"));
    const qint64 ttlS = ttlValue.isUndefined() ? proxy::ProxyTokens::kDefaultTtlS
                        : ttlValue.isDouble() && ttlValue.toDouble() == double(ttlValue.toInteger())
                            ? ttlValue.toInteger()
                            : -1;
    if (ttlS < 1 || ttlS > proxy::ProxyTokens::kMaxTtlS)
        return ex->replyError(400, QStringLiteral("invalid_request"),
                              QStringLiteral("ttlS must be a whole number of seconds from 1 to %1")
                                  .arg(proxy::ProxyTokens::kMaxTtlS));
    const qint64 now = nowS();
    const QByteArray token = m_tokens.mint(ws->id, ws->tokenNonce, port, ttlS, now);
    const QString host = proxy::ProxyOrigin{port, ws->id}.hostName(m_context->config.proxyDomain);
    const QByteArray listenPort = QByteArray::number(m_context->config.listenPort);
    const QString url =
        QStringLiteral("http://%1:%2/?%3=%4")
            .arg(host, QString::fromLatin1(portOfHost(ex->request().header("host"), listenPort)),
                 QLatin1String(kQueryParameter), QString::fromLatin1(token));
    ex->replyJson(
        201,
        QJsonObject{{"token", QString::fromLatin1(token)},
                    {"url", url},
                    {"expiresAt",
                     QDateTime::fromSecsSinceEpoch(now + ttlS, Qt::UTC).toString(Qt::ISODate)}});
}

void BrowserProxy::handle(http::HttpExchange* ex, const proxy::ProxyOrigin& origin) {
    const http::HttpRequest& req = ex->request();
    const workspace::Workspace* ws = m_context->workspaces->find(origin.workspaceId);
    const qint64 now = nowS();
    // The same answer whether the workspace exists or not: nothing is told before a token.
    const auto check = [&](const QByteArray& token, proxy::ProxyTokens::Claims* claims) {
        return m_tokens.verify(token, origin.workspaceId, ws ? ws->tokenNonce : QByteArray(),
                               origin.port, now, claims);
    };
    bool inQuery = false;
    const QString queryToken = req.queryValue(QLatin1String(kQueryParameter), &inQuery);
    if (inQuery) {
        proxy::ProxyTokens::Claims claims;
        if (auto err = check(queryToken.toLatin1(), &claims))
            return ex->replyError(*err);
        if (!m_tokens.consumeInUrl(claims, now))
            return ex->replyError(401, QStringLiteral("proxy_token_spent"),
                                  QStringLiteral("this proxy URL was opened already; ask for a "
                                                 "new one"));
        // The token leaves the URL (history, Referer) for a host-only cookie (RFC 6265 §5.3:
        // no Domain attribute), which scripts cannot read and cross-site requests do not carry.
        const QByteArray rest = queryWithoutToken(req.rawQuery);
        const QByteArray location =
            sameOriginPath(req.rawPath) + (rest.isEmpty() ? QByteArray() : '?' + rest);
        const QByteArray cookie =
            QByteArray(proxy::kProxyTokenCookie) + '=' + queryToken.toLatin1() +
            "; Path=/; Max-Age=" + QByteArray::number(claims.expiresAtS - now) +
            "; HttpOnly; SameSite=Lax";
        return ex->reply(303, QByteArray(), QByteArray(),
                         {{"Location", location},
                          {"Set-Cookie", cookie},
                          {"Cache-Control", "no-store"},
                          {"Referrer-Policy", "no-referrer"}});
    }
    QList<QByteArray> presented;
    for (const auto& [name, value] : req.headers) {
        if (name == "x-runbox-proxy-token")
            presented << value.trimmed();
        else if (name == "cookie")
            for (const QByteArray& pair : value.split(';'))
                if (const QByteArray p = pair.trimmed();
                    p.left(p.indexOf('=')).trimmed() == proxy::kProxyTokenCookie)
                    presented << p.mid(p.indexOf('=') + 1).trimmed();
    }
    if (presented.isEmpty())
        return ex->replyError(401, QStringLiteral("proxy_token_required"),
                              QStringLiteral("this origin serves a workspace's port to holders of "
                                             "a proxy token (POST "
                                             "/v1/workspaces/{id}/proxy-tokens)"));
    std::optional<Error> refusal;
    for (const QByteArray& token : std::as_const(presented)) {
        refusal = check(token, nullptr);
        if (!refusal)
            break;
    }
    if (refusal)
        return ex->replyError(*refusal);
    if (!req.rawTarget.startsWith('/'))
        return ex->replyError(400, QStringLiteral("invalid_path"),
                              QStringLiteral("a request to a proxy origin names a path"));
    m_relay(ex, *ws, origin.port, req.rawTarget);
}

} // namespace runbox::api
