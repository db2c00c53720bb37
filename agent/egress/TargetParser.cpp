#include "agent/egress/TargetParser.h"

#include "shared/NetworkPolicyGrammar.h"

#include <QHostAddress>

namespace runbox::egress {

namespace {

constexpr int kMaxLabelLength = 63; // RFC 1035 §2.3.4
constexpr int kMaxNameLength = 253; // RFC 1035 §2.3.4 (255 octets on the wire)

bool fail(TargetError* error, const char* code, const QString& message) {
    if (error)
        *error = TargetError{QString::fromLatin1(code), message};
    return false;
}

QString quoted(QByteArrayView bytes) {
    // Show what the client sent without letting control bytes into logs.
    QString text;
    for (char c : bytes) {
        const auto u = static_cast<unsigned char>(c);
        if (u >= 0x20 && u < 0x7f)
            text += QLatin1Char(c);
        else
            text += QStringLiteral("\\x%1").arg(u, 2, 16, QLatin1Char('0'));
    }
    return QLatin1Char('"') + text + QLatin1Char('"');
}

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

bool parsePort(QByteArrayView text, quint16* port) {
    if (text.isEmpty() || text.size() > 5)
        return false;
    int value = 0;
    for (char c : text) {
        if (!isDigit(c))
            return false;
        value = value * 10 + (c - '0');
    }
    if (value < 1 || value > 65535)
        return false;
    *port = quint16(value);
    return true;
}

// Splits "host[:port]" where host may be "[v6]". Returns false for an unbracketed IPv6 literal
// or other colon soup (reported by the caller through parseHostName of the whole thing).
bool splitHostPort(QByteArrayView text, QByteArrayView* host, QByteArrayView* port, bool* hasPort) {
    *hasPort = false;
    if (text.startsWith('[')) {
        const qsizetype close = text.indexOf(']');
        if (close < 0)
            return false;
        *host = text.first(close + 1);
        const QByteArrayView rest = text.sliced(close + 1);
        if (rest.isEmpty())
            return true;
        if (!rest.startsWith(':'))
            return false;
        *hasPort = true;
        *port = rest.sliced(1);
        return true;
    }
    const qsizetype colon = text.lastIndexOf(':');
    if (colon < 0) {
        *host = text;
        return true;
    }
    *host = text.first(colon);
    *port = text.sliced(colon + 1);
    *hasPort = true;
    return !host->contains(':');
}

std::optional<Target> parseHostAndPort(QByteArrayView text, bool portRequired, quint16 defaultPort,
                                       TargetError* error) {
    if (text.contains('@')) {
        fail(error, "malformed_target",
             QStringLiteral("userinfo is not allowed in %1").arg(quoted(text)));
        return std::nullopt;
    }
    QByteArrayView hostPart;
    QByteArrayView portPart;
    bool hasPort = false;
    if (!splitHostPort(text, &hostPart, &portPart, &hasPort)) {
        if (TargetParser::looksLikeIpLiteral(text) || TargetParser::looksLikeIpLiteral(hostPart)) {
            fail(error, "ip_literal",
                 QStringLiteral("%1 is an IP address; egress allows domain names only")
                     .arg(quoted(text)));
        } else {
            fail(error, "malformed_target",
                 QStringLiteral("%1 is not host:port").arg(quoted(text)));
        }
        return std::nullopt;
    }
    const std::optional<QString> host = TargetParser::parseHostName(hostPart, error);
    if (!host)
        return std::nullopt;
    Target target{*host, defaultPort, {}};
    if (hasPort) {
        if (!parsePort(portPart, &target.port)) {
            fail(error, "malformed_target",
                 QStringLiteral("bad port %1 (must be 1-65535)").arg(quoted(portPart)));
            return std::nullopt;
        }
    } else if (portRequired) {
        fail(error, "malformed_target", QStringLiteral("%1 has no port").arg(quoted(text)));
        return std::nullopt;
    }
    return target;
}

} // namespace

bool TargetParser::looksLikeIpLiteral(QByteArrayView host) {
    // The shared grammar's rule, so the gateway refuses exactly what the policy refuses.
    return NetworkPolicyGrammar::looksLikeIpLiteral(QString::fromLatin1(host));
}

std::optional<QString> TargetParser::parseHostName(QByteArrayView host, TargetError* error) {
    if (host.isEmpty()) {
        fail(error, "malformed_target", QStringLiteral("empty host"));
        return std::nullopt;
    }
    if (looksLikeIpLiteral(host)) {
        fail(error, "ip_literal",
             QStringLiteral("%1 is an IP address; egress allows domain names only")
                 .arg(quoted(host)));
        return std::nullopt;
    }
    if (host.startsWith('[') || host.endsWith(']')) {
        fail(error, "malformed_target",
             QStringLiteral("brackets are only for IP literals: %1").arg(quoted(host)));
        return std::nullopt;
    }
    if (host.contains('%')) {
        fail(error, "malformed_target",
             QStringLiteral("percent-encoding is not allowed in a host: %1").arg(quoted(host)));
        return std::nullopt;
    }
    if (host.contains('@')) {
        fail(error, "malformed_target",
             QStringLiteral("userinfo is not allowed: %1").arg(quoted(host)));
        return std::nullopt;
    }
    if (host.size() > kMaxNameLength) {
        fail(error, "malformed_target", QStringLiteral("host name longer than 253 characters"));
        return std::nullopt;
    }
    QByteArray lower = host.toByteArray().toLower();
    qsizetype labelStart = 0;
    for (qsizetype i = 0; i <= lower.size(); ++i) {
        if (i < lower.size() && lower[i] != '.') {
            const char c = lower[i];
            if (!(isDigit(c) || (c >= 'a' && c <= 'z') || c == '-')) {
                fail(error, "malformed_target",
                     QStringLiteral("invalid character in host %1").arg(quoted(host)));
                return std::nullopt;
            }
            continue;
        }
        const qsizetype length = i - labelStart;
        if (length == 0) {
            fail(error, "malformed_target",
                 QStringLiteral("empty label in host %1 (no leading, trailing or double dots)")
                     .arg(quoted(host)));
            return std::nullopt;
        }
        if (length > kMaxLabelLength || lower[labelStart] == '-' || lower[i - 1] == '-') {
            fail(error, "malformed_target",
                 QStringLiteral("invalid label in host %1").arg(quoted(host)));
            return std::nullopt;
        }
        labelStart = i + 1;
    }
    return QString::fromLatin1(lower);
}

std::optional<Target> TargetParser::parseAuthority(QByteArrayView authority, TargetError* error) {
    return parseHostAndPort(authority, true, 0, error);
}

std::optional<Target> TargetParser::parseHostHeader(QByteArrayView value, TargetError* error) {
    return parseHostAndPort(value, false, 0, error);
}

std::optional<Target> TargetParser::parseAbsoluteForm(QByteArrayView uri, TargetError* error) {
    const qsizetype schemeEnd = uri.indexOf("://");
    if (schemeEnd <= 0) {
        fail(error, "malformed_target",
             QStringLiteral("the egress proxy expects absolute-form (http://host/path) or "
                            "CONNECT, not %1")
                 .arg(quoted(uri.first(qMin<qsizetype>(uri.size(), 64)))));
        return std::nullopt;
    }
    const QByteArray scheme = uri.first(schemeEnd).toByteArray().toLower();
    if (scheme != "http") {
        fail(error, "malformed_target",
             QStringLiteral("cannot forward %1:// in absolute form; use CONNECT")
                 .arg(QString::fromLatin1(scheme.left(16))));
        return std::nullopt;
    }
    const QByteArrayView rest = uri.sliced(schemeEnd + 3);
    qsizetype authorityEnd = rest.size();
    for (qsizetype i = 0; i < rest.size(); ++i) {
        if (rest[i] == '/' || rest[i] == '?' || rest[i] == '#') {
            authorityEnd = i;
            break;
        }
    }
    const QByteArrayView pathAndQuery = rest.sliced(authorityEnd);
    if (pathAndQuery.contains('#')) {
        fail(error, "malformed_target", QStringLiteral("a fragment is not sent to a server"));
        return std::nullopt;
    }
    std::optional<Target> target = parseHostAndPort(rest.first(authorityEnd), false, 80, error);
    if (!target)
        return std::nullopt;
    if (pathAndQuery.isEmpty())
        target->pathAndQuery = "/";
    else if (pathAndQuery.startsWith('?'))
        target->pathAndQuery = "/" + pathAndQuery.toByteArray();
    else
        target->pathAndQuery = pathAndQuery.toByteArray();
    return target;
}

} // namespace runbox::egress
