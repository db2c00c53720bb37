#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <optional>

namespace runbox::egress {

/// Where a proxied request wants to go: a canonical domain name (lower-case ASCII, LDH labels,
/// no trailing dot) and a TCP port; for absolute-form requests also the origin-form path.
struct Target {
    QString host;
    quint16 port = 0;
    QByteArray pathAndQuery; ///< "/path?query" for absolute-form; empty for CONNECT

    /// "host:port".
    QString authority() const { return host + QLatin1Char(':') + QString::number(port); }
};

/// Why a target was refused. code is "ip_literal" (a 403: policy admits names only) or
/// "malformed_target" (a 400); message is human text naming the offending part.
struct TargetError {
    QString code;
    QString message;
};

/// Strict parser for the request-targets an HTTP proxy sees (RFC 9112 §3.2). It admits domain
/// names only: every notation an OS or URL parser would take as an IP address is refused, and so
/// are userinfo, brackets around names, percent-encoding, empty labels (so also a trailing dot)
/// and anything outside letters, digits, '-' and '.'. Letters are folded to lower case
/// (DNS names are case-insensitive, RFC 4343).
class TargetParser final {
public:
    /// CONNECT authority-form `host:port` (RFC 9110 §9.3.6: the port is required, 1–65535).
    static std::optional<Target> parseAuthority(QByteArrayView authority, TargetError* error);
    /// absolute-form `http://host[:port][/path][?query]` (RFC 9112 §3.2.2). Only `http` is
    /// accepted (https must use CONNECT); the default port is 80; a fragment is refused.
    static std::optional<Target> parseAbsoluteForm(QByteArrayView uri, TargetError* error);
    /// A `Host` header value `host[:port]` (RFC 9110 §7.2); port 0 in the result when absent.
    static std::optional<Target> parseHostHeader(QByteArrayView value, TargetError* error);
    /// A bare host: returns the canonical lower-case name or refuses it.
    static std::optional<QString> parseHostName(QByteArrayView host, TargetError* error);
    /// True when @p host would be read as an IP address by inet_aton (dotted, decimal, octal,
    /// hex, short forms such as 127.1), by a WHATWG URL parser (last label numeric or 0x-hex),
    /// or by inet_pton (IPv6, with or without brackets). A single trailing dot is ignored.
    static bool looksLikeIpLiteral(QByteArrayView host);
};

} // namespace runbox::egress
