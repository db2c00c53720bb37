#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>

namespace runbox::api {

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

} // namespace runbox::api
