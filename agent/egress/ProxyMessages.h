#pragma once

#include "agent/egress/ProxyRequestParser.h"
#include "agent/egress/TargetParser.h"

#include <QByteArray>
#include <QString>

namespace runbox::egress {

/// The bytes the egress gateway writes itself: its own responses and the request head it sends
/// upstream for absolute-form requests.
namespace proxy_messages {

/// A complete response that ends the connection: status line, `Content-Type: text/plain`,
/// `Content-Length`, `Connection: close`, `X-Runbox-Egress-Reason: <reason>`, and @p message
/// plus a newline as the body. @p reason must be a snake_case token.
QByteArray errorResponse(int status, const QString& reason, const QString& message);

/// "HTTP/1.1 200 Connection Established" + blank line (RFC 9110 §9.3.6).
QByteArray connectEstablished();

/// Whether @p name is hop-by-hop for this request (RFC 9110 §7.6.1: Connection, the fields it
/// lists, Keep-Alive, Proxy-Connection, TE, Trailer, Transfer-Encoding, Upgrade), a `Proxy-*`
/// field (credentials meant for us, never forwarded), or `Host` (rebuilt from the target).
bool isDroppedHeader(QByteArrayView name, const QList<QByteArray>& connectionTokens);

/// The origin-form head to send upstream for @p head aimed at @p target: request line with the
/// path and query only, `Host` rebuilt from the target (port omitted when 80), every end-to-end
/// header of the client in order, `Transfer-Encoding: chunked` when the body is re-chunked, and
/// `Connection: close` (one request per upstream connection).
QByteArray upstreamRequestHead(const ProxyRequestHead& head, const Target& target);

/// One chunk of a chunked body (RFC 9112 §7.1); empty @p data gives the last-chunk and the end.
QByteArray chunk(const QByteArray& data);

} // namespace proxy_messages

} // namespace runbox::egress
