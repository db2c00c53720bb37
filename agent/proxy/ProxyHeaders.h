#pragma once

#include "agent/http/HttpRequest.h"

#include <QByteArray>
#include <QList>
#include <QPair>

#include <optional>

namespace runbox::proxy {

/// Hop-by-hop (RFC 9110 §7.6.1) and framing headers, never relayed by the port proxy in either
/// direction (@p lowerName in lower case).
inline bool isHopByHopHeader(const QByteArray& lowerName) {
    static const QList<QByteArray> names = {"connection",         "keep-alive", "proxy-connection",
                                            "proxy-authenticate", "te",         "trailer",
                                            "transfer-encoding",  "upgrade",    "content-length",
                                            "proxy-authorization"};
    return names.contains(lowerName);
}

/// The tokens of every Connection header of @p headers, in lower case: the names listed there
/// are hop-by-hop too (RFC 9110 §7.6.1).
inline QList<QByteArray> connectionTokens(const QList<QPair<QByteArray, QByteArray>>& headers) {
    QList<QByteArray> tokens;
    for (const auto& [name, value] : headers)
        if (name.toLower() == "connection")
            for (const QByteArray& token : value.split(','))
                tokens << token.trimmed().toLower();
    return tokens;
}

/// Request headers the workspace never sees: the agent's auth and its own X-Runbox-* headers,
/// client-supplied X-Forwarded-* (the proxy writes its own) and `Expect`.
inline bool isAgentOnlyRequestHeader(const QByteArray& lowerName) {
    return lowerName == "authorization" || lowerName.startsWith("x-runbox-") ||
           lowerName == "expect" || lowerName.startsWith("x-forwarded-");
}

/// The cookie that carries a browser's proxy token (docs/contracts.md "Port proxy for browsers").
inline constexpr char kProxyTokenCookie[] = "runbox_proxy";

/// A Cookie header's value (RFC 6265 §5.4: `name=value` pairs separated by `; `) without the
/// proxy token's cookie: what the workspace sees. Empty when nothing else is left.
inline QByteArray withoutProxyTokenCookie(const QByteArray& cookieHeader) {
    QList<QByteArray> kept;
    for (const QByteArray& pair : cookieHeader.split(';')) {
        const QByteArray trimmed = pair.trimmed();
        if (trimmed.isEmpty() || trimmed.left(trimmed.indexOf('=')).trimmed() == kProxyTokenCookie)
            continue;
        kept << trimmed;
    }
    return kept.join("; ");
}

/// A response header of the workspace as the client gets it, or nullopt when it is dropped
/// (@p lowerName in lower case): the agent's own `X-Runbox-*` headers never come from a
/// workspace; a `Set-Cookie` for the proxy token's cookie is dropped, and any other loses its
/// `Domain` attributes (RFC 6265 §5.2.3), so that the cookie stays host-only: with a
/// registrable proxy domain, a workspace could otherwise set cookies that every other
/// workspace's origin receives.
inline std::optional<QByteArray> relayedResponseHeader(const QByteArray& lowerName,
                                                       const QByteArray& value) {
    if (lowerName.startsWith("x-runbox-"))
        return std::nullopt;
    if (lowerName != "set-cookie")
        return value;
    const QList<QByteArray> parts = value.split(';');
    const QByteArray pair = parts.value(0).trimmed();
    if (pair.left(pair.indexOf('=')).trimmed() == kProxyTokenCookie)
        return std::nullopt;
    QList<QByteArray> kept{pair};
    for (qsizetype i = 1; i < parts.size(); ++i) {
        const QByteArray attribute = parts.at(i).trimmed();
        if (attribute.left(attribute.indexOf('=')).trimmed().toLower() != "domain")
            kept << attribute;
    }
    return kept.join("; ");
}

/// The head of a request forwarded to a workspace, without its final empty line:
/// @p requestLine ("GET /path HTTP/1.1"), the client's end-to-end headers (no hop-by-hop,
/// Connection-listed or agent-only header; Cookie without the proxy token's cookie), then
/// `X-Forwarded-For` (the client's address) and, when @p prefix is not empty,
/// `X-Forwarded-Prefix: @p prefix` (the public path prefix).
inline QByteArray forwardedRequestHead(const http::HttpRequest& req, const QByteArray& requestLine,
                                       const QByteArray& prefix) {
    const QList<QByteArray> listed = connectionTokens(req.headers);
    QByteArray head = requestLine + "\r\n";
    for (const auto& [name, value] : req.headers) {
        const QByteArray lower = name.toLower();
        if (isHopByHopHeader(lower) || listed.contains(lower) || isAgentOnlyRequestHeader(lower))
            continue;
        if (lower == "cookie") {
            if (const QByteArray rest = withoutProxyTokenCookie(value); !rest.isEmpty())
                head += name + ": " + rest + "\r\n";
            continue;
        }
        head += name + ": " + value + "\r\n";
    }
    const qsizetype colon = req.peer.lastIndexOf(QLatin1Char(':'));
    head += "X-Forwarded-For: " + req.peer.left(colon).toLatin1() + "\r\n";
    if (!prefix.isEmpty())
        head += "X-Forwarded-Prefix: " + prefix + "\r\n";
    return head;
}

} // namespace runbox::proxy
