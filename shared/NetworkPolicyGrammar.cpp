#include "shared/NetworkPolicyGrammar.h"

#include <QHostAddress>
#include <QRegularExpression>
#include <QSet>
#include <QUrl>

#include <algorithm>

namespace runbox {

namespace {

// Messages are English, marked with QT_TRANSLATE_NOOP for the console's translations.
bool fail(QString* error, const char* message) {
    if (error)
        *error = QString::fromUtf8(message);
    return false;
}

bool isDigit(QChar c) {
    return c >= u'0' && c <= u'9';
}

bool isHexDigit(QChar c) {
    return isDigit(c) || (c >= u'a' && c <= u'f') || (c >= u'A' && c <= u'F');
}

// WHATWG URL "ends in a number": the last label is all digits, or "0x" and hex digits.
bool isNumericLabel(QStringView label) {
    if (label.isEmpty())
        return false;
    if (label.size() >= 2 && label[0] == u'0' && (label[1] == u'x' || label[1] == u'X'))
        return std::all_of(label.begin() + 2, label.end(), isHexDigit);
    return std::all_of(label.begin(), label.end(), isDigit);
}

// LDH label (RFC 1123 §2.1; the xn-- forms of RFC 5891 are LDH too).
bool isLdhLabel(const QString& label) {
    static const QRegularExpression pattern(
        QStringLiteral("^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$"));
    return pattern.match(label).hasMatch();
}

bool parsePort(QStringView text, quint16* port) {
    if (text.isEmpty() || text.size() > 5 || !std::all_of(text.begin(), text.end(), isDigit))
        return false;
    const int value = text.toInt();
    if (value < 1 || value > 65535)
        return false;
    *port = quint16(value);
    return true;
}

// Lower case, one trailing dot removed, punycode, LDH labels, at least two labels.
std::optional<QString> canonicalName(QString host, QString* error) {
    host = host.toLower();
    if (host.endsWith(u'.'))
        host.chop(1);
    if (host.isEmpty()) {
        fail(error, QT_TRANSLATE_NOOP("runbox::NetworkPolicyGrammar", "empty host name"));
        return std::nullopt;
    }
    if (NetworkPolicyGrammar::looksLikeIpLiteral(host)) {
        fail(error, QT_TRANSLATE_NOOP("runbox::NetworkPolicyGrammar",
                                      "IP literals are not allowed; use a domain name"));
        return std::nullopt;
    }
    const QString ace = QString::fromLatin1(QUrl::toAce(host));
    if (ace.isEmpty()) {
        fail(error, QT_TRANSLATE_NOOP("runbox::NetworkPolicyGrammar", "not a valid domain name"));
        return std::nullopt;
    }
    // IDNA mapping can turn e.g. full-width digits into ASCII ones: check again.
    if (NetworkPolicyGrammar::looksLikeIpLiteral(ace)) {
        fail(error, QT_TRANSLATE_NOOP("runbox::NetworkPolicyGrammar",
                                      "IP literals are not allowed; use a domain name"));
        return std::nullopt;
    }
    const QStringList labels = ace.split(u'.');
    if (labels.size() < 2) {
        fail(error,
             QT_TRANSLATE_NOOP("runbox::NetworkPolicyGrammar",
                               "a single label is not allowed; name a domain such as example.org"));
        return std::nullopt;
    }
    if (ace.size() > 253 || !std::all_of(labels.begin(), labels.end(), isLdhLabel)) {
        fail(error, QT_TRANSLATE_NOOP(
                        "runbox::NetworkPolicyGrammar",
                        "labels must be letters, digits and inner hyphens, 1-63 characters"));
        return std::nullopt;
    }
    return ace;
}

} // namespace

QString DomainRule::toString() const {
    QString text = wildcard ? QStringLiteral("*.") + host : host;
    if (port != 0)
        text += u':' + QString::number(port);
    return text;
}

bool DomainRule::matches(const QString& canonicalHost, quint16 targetPort) const {
    if (port != 0 && port != targetPort)
        return false;
    if (!wildcard)
        return canonicalHost == host;
    // "*.example.org": strictly below example.org, whole labels only.
    return canonicalHost.size() > host.size() + 1 && canonicalHost.endsWith(host) &&
           canonicalHost.at(canonicalHost.size() - host.size() - 1) == u'.';
}

bool NetworkPolicyGrammar::looksLikeIpLiteral(QStringView host) {
    if (host.endsWith(u'.'))
        host.chop(1);
    if (host.isEmpty())
        return false;
    QHostAddress address;
    if (host.startsWith(u'[') && host.endsWith(u']')) {
        // RFC 3986 §3.2.2 IP-literal (and RFC 6874 zone ids): anything bracketed is an address.
        const QStringView inner = host.sliced(1, host.size() - 2);
        return address.setAddress(inner.toString()) || inner.startsWith(u'v') ||
               inner.startsWith(u'V') || inner.contains(u':') || inner.contains(u'%');
    }
    if (host.contains(u':'))
        return address.setAddress(host.toString());
    const qsizetype lastDot = host.lastIndexOf(u'.');
    if (isNumericLabel(lastDot < 0 ? host : host.sliced(lastDot + 1)))
        return true;
    return address.setAddress(host.toString()); // inet_aton-style forms Qt accepts
}

std::optional<DomainRule> NetworkPolicyGrammar::parseDomain(const QString& original,
                                                            QString* error) {
    const QString entry = original.trimmed();
    if (entry.isEmpty()) {
        fail(error, QT_TRANSLATE_NOOP("runbox::NetworkPolicyGrammar", "empty entry"));
        return std::nullopt;
    }
    for (const QChar c : entry) {
        if (c.isSpace() || c == u'/' || c == u'@') {
            fail(error, QT_TRANSLATE_NOOP("runbox::NetworkPolicyGrammar",
                                          "'/', '@' and whitespace are not allowed"));
            return std::nullopt;
        }
    }
    if (entry.contains(u'[') || entry.count(u':') > 1) {
        fail(error, QT_TRANSLATE_NOOP("runbox::NetworkPolicyGrammar",
                                      "IP literals are not allowed; use a domain name"));
        return std::nullopt;
    }
    DomainRule rule;
    QString host = entry.toLower();
    if (host.startsWith(QStringLiteral("*."))) {
        rule.wildcard = true;
        host = host.mid(2);
    }
    if (host.contains(u'*')) {
        fail(error, QT_TRANSLATE_NOOP("runbox::NetworkPolicyGrammar",
                                      "'*' is only allowed as a leading \"*.\""));
        return std::nullopt;
    }
    const qsizetype colon = host.indexOf(u':');
    if (colon >= 0) {
        if (!parsePort(QStringView(host).sliced(colon + 1), &rule.port)) {
            fail(error,
                 QT_TRANSLATE_NOOP("runbox::NetworkPolicyGrammar", "bad port (must be 1-65535)"));
            return std::nullopt;
        }
        host.truncate(colon);
    }
    const std::optional<QString> name = canonicalName(host, error);
    if (!name)
        return std::nullopt;
    rule.host = *name;
    return rule;
}

std::optional<QString> NetworkPolicyGrammar::parseCidr(const QString& entry, QString* error) {
    const QString text = entry.trimmed();
    const QPair<QHostAddress, int> subnet = QHostAddress::parseSubnet(text);
    if (text.isEmpty() || subnet.second < 0 || subnet.first.isNull()) {
        fail(error, QT_TRANSLATE_NOOP("runbox::NetworkPolicyGrammar",
                                      "not an address prefix such as 10.0.0.0/8 or fd00::/8"));
        return std::nullopt;
    }
    QHostAddress network = subnet.first;
    int length = subnet.second;
    if (network.protocol() == QAbstractSocket::IPv6Protocol) {
        Q_IPV6ADDR bytes = network.toIPv6Address();
        const bool mapped = std::all_of(bytes.c, bytes.c + 10, [](quint8 b) { return b == 0; }) &&
                            bytes.c[10] == 0xff && bytes.c[11] == 0xff;
        if (mapped && length >= 96) {
            const quint32 v4 = (quint32(bytes.c[12]) << 24) | (quint32(bytes.c[13]) << 16) |
                               (quint32(bytes.c[14]) << 8) | quint32(bytes.c[15]);
            network = QHostAddress(v4);
            length -= 96;
        }
    }
    if (network.protocol() == QAbstractSocket::IPv4Protocol) {
        const quint32 mask = length == 0 ? 0 : ~quint32(0) << (32 - length);
        network = QHostAddress(network.toIPv4Address() & mask);
    } else {
        Q_IPV6ADDR bytes = network.toIPv6Address();
        for (int bit = length; bit < 128; ++bit)
            bytes.c[bit / 8] &= quint8(~(0x80 >> (bit % 8)));
        network = QHostAddress(bytes);
    }
    return network.toString().toLower() + u'/' + QString::number(length);
}

QString NetworkPolicyGrammar::canonicalHost(const QString& host) {
    const std::optional<QString> name = canonicalName(host.trimmed(), nullptr);
    return name.value_or(QString());
}

HostVerdict NetworkPolicyGrammar::check(const QList<DomainRule>& rules,
                                        const QString& hostAndPort) {
    HostVerdict verdict;
    QString text = hostAndPort.trimmed();
    if (text.isEmpty()) {
        verdict.reason = QString::fromUtf8(QT_TRANSLATE_NOOP(
            "runbox::NetworkPolicyGrammar", "enter a host name such as pypi.org or pypi.org:443"));
        return verdict;
    }
    if (text.startsWith(u'[') || text.count(u':') > 1 || looksLikeIpLiteral(text)) {
        verdict.reason = QString::fromUtf8(
            QT_TRANSLATE_NOOP("runbox::NetworkPolicyGrammar",
                              "IP addresses are never allowed; egress admits domain names only"));
        return verdict;
    }
    const qsizetype colon = text.indexOf(u':');
    if (colon >= 0) {
        if (!parsePort(QStringView(text).sliced(colon + 1), &verdict.port)) {
            verdict.reason = QString::fromUtf8(
                QT_TRANSLATE_NOOP("runbox::NetworkPolicyGrammar", "bad port (must be 1-65535)"));
            return verdict;
        }
        text.truncate(colon);
    }
    QString error;
    const std::optional<QString> name = canonicalName(text, &error);
    if (!name) {
        verdict.reason = error;
        return verdict;
    }
    verdict.host = *name;
    for (const DomainRule& rule : rules) {
        const bool portOk = rule.port == 0 || verdict.port == 0 || rule.port == verdict.port;
        // Without a port asked for, a rule that names one admits only that port: say so.
        if (portOk && rule.matches(verdict.host, rule.port == 0 ? verdict.port : rule.port)) {
            verdict.allowed = true;
            verdict.matchedBy = rule.toString();
            verdict.reason = rule.port != 0 && verdict.port == 0
                                 ? QStringLiteral("allowed on port %1 only, by %2")
                                       .arg(QString::number(rule.port), verdict.matchedBy)
                                 : QStringLiteral("allowed by %1").arg(verdict.matchedBy);
            return verdict;
        }
    }
    verdict.reason = rules.isEmpty() ? QString::fromUtf8(QT_TRANSLATE_NOOP(
                                           "runbox::NetworkPolicyGrammar", "no domain is allowed"))
                                     : QStringLiteral("no entry matches %1").arg(verdict.host);
    return verdict;
}

NetworkPolicyGrammar::ListResult NetworkPolicyGrammar::parseDomainList(const QStringList& entries) {
    ListResult result;
    QSet<QString> seen;
    for (int i = 0; i < entries.size(); ++i) {
        QString error;
        const std::optional<DomainRule> rule = parseDomain(entries.at(i), &error);
        if (!rule) {
            result.refused.append({i, error});
            continue;
        }
        const QString text = rule->toString();
        if (seen.contains(text))
            continue;
        seen.insert(text);
        result.rules.append(*rule);
    }
    std::sort(result.rules.begin(), result.rules.end(),
              [](const DomainRule& a, const DomainRule& b) { return a.toString() < b.toString(); });
    return result;
}

} // namespace runbox
