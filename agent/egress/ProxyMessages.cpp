#include "agent/egress/ProxyMessages.h"

namespace runbox::egress::proxy_messages {

namespace {

QByteArray reasonPhrase(int status) {
    switch (status) {
    case 400:
        return "Bad Request";
    case 403:
        return "Forbidden";
    case 408:
        return "Request Timeout";
    case 431:
        return "Request Header Fields Too Large";
    case 502:
        return "Bad Gateway";
    case 503:
        return "Service Unavailable";
    case 504:
        return "Gateway Timeout";
    default:
        return "Error";
    }
}

QList<QByteArray> connectionTokens(const ProxyRequestHead& head) {
    QList<QByteArray> tokens;
    for (const QByteArray& value : head.values("Connection")) {
        for (const QByteArray& token : value.split(','))
            tokens.append(token.trimmed().toLower());
    }
    return tokens;
}

} // namespace

QByteArray errorResponse(int status, const QString& reason, const QString& message) {
    const QByteArray body = message.toUtf8() + '\n';
    QByteArray response = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) +
                          "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " +
                          QByteArray::number(body.size()) +
                          "\r\nConnection: close\r\nX-Runbox-Egress-Reason: " + reason.toLatin1() +
                          "\r\n\r\n";
    return response + body;
}

QByteArray connectEstablished() {
    return QByteArrayLiteral("HTTP/1.1 200 Connection Established\r\n\r\n");
}

bool isDroppedHeader(QByteArrayView name, const QList<QByteArray>& tokens) {
    static const QByteArrayView kHopByHop[] = {"connection", "keep-alive", "proxy-connection",
                                               "te",         "trailer",    "transfer-encoding",
                                               "upgrade",    "host"};
    const QByteArray lower = name.toByteArray().toLower();
    if (lower.startsWith("proxy-"))
        return true;
    for (QByteArrayView hop : kHopByHop) {
        if (lower == hop)
            return true;
    }
    return tokens.contains(lower);
}

QByteArray upstreamRequestHead(const ProxyRequestHead& head, const Target& target) {
    QByteArray out = head.method + ' ' + target.pathAndQuery + " HTTP/" +
                     QByteArray::number(head.versionMajor) + '.' +
                     QByteArray::number(head.versionMinor) + "\r\nHost: " + target.host.toLatin1();
    if (target.port != 80)
        out += ':' + QByteArray::number(target.port);
    out += "\r\n";
    const QList<QByteArray> tokens = connectionTokens(head);
    for (const HeaderField& field : head.headers) {
        if (!isDroppedHeader(field.name, tokens))
            out += field.name + ": " + field.value + "\r\n";
    }
    if (head.chunked)
        out += "Transfer-Encoding: chunked\r\n";
    out += "Connection: close\r\n\r\n";
    return out;
}

QByteArray chunk(const QByteArray& data) {
    if (data.isEmpty())
        return QByteArrayLiteral("0\r\n\r\n");
    return QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n";
}

} // namespace runbox::egress::proxy_messages
