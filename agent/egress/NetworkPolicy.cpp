#include "agent/egress/NetworkPolicy.h"

#include "agent/egress/TargetParser.h"
#include "shared/Crypto.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QUrl>

#include <algorithm>

namespace runbox::egress {

namespace {

const QString kModeKey = QStringLiteral("mode");
const QString kDomainsKey = QStringLiteral("allowedDomains");
const QString kCidrsKey = QStringLiteral("allowPrivateCidrs");
const QString kRevisionKey = QStringLiteral("revision");

bool refuse(ApiError* error, const QString& message) {
    if (error)
        *error = ApiError{400, QStringLiteral("invalid_network_policy"), message};
    return false;
}

QString entryRefusal(const QString& entry, const QString& why) {
    return QStringLiteral("allowedDomains entry \"%1\": %2").arg(entry, why);
}

// LDH label (RFC 1123 §2.1, RFC 5891 for the xn-- forms toAce produces).
bool isLdhLabel(const QString& label) {
    static const QRegularExpression pattern(
        QStringLiteral("^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$"));
    return pattern.match(label).hasMatch();
}

std::optional<DomainEntry> parseDomainEntry(const QJsonValue& value, ApiError* error) {
    if (!value.isString()) {
        refuse(error, QStringLiteral("allowedDomains entries must be strings"));
        return std::nullopt;
    }
    const QString original = value.toString();
    const QString entry = original.trimmed();
    if (entry.isEmpty()) {
        refuse(error, QStringLiteral("allowedDomains contains an empty entry"));
        return std::nullopt;
    }
    for (const QChar c : entry) {
        if (c.isSpace() || c == QLatin1Char('/') || c == QLatin1Char('@')) {
            refuse(error, entryRefusal(original, QStringLiteral("'/', '@' and whitespace are "
                                                                "not allowed")));
            return std::nullopt;
        }
    }
    if (entry.contains(QLatin1Char('[')) || entry.count(QLatin1Char(':')) > 1) {
        refuse(error, entryRefusal(original, QStringLiteral("IP literals are not allowed; "
                                                            "use a domain name")));
        return std::nullopt;
    }
    DomainEntry result;
    QString host = entry.toLower();
    if (host.startsWith(QStringLiteral("*."))) {
        result.wildcard = true;
        host = host.mid(2);
    }
    if (host.contains(QLatin1Char('*'))) {
        refuse(error, entryRefusal(original, QStringLiteral("'*' is only allowed as a leading "
                                                            "\"*.\"")));
        return std::nullopt;
    }
    const qsizetype colon = host.indexOf(QLatin1Char(':'));
    if (colon >= 0) {
        const QString portText = host.mid(colon + 1);
        bool ok = false;
        const int port = portText.toInt(&ok);
        const bool digitsOnly = !portText.isEmpty() && portText.size() <= 5 &&
                                std::all_of(portText.begin(), portText.end(),
                                            [](QChar c) { return c >= u'0' && c <= u'9'; });
        if (!ok || !digitsOnly || port < 1 || port > 65535) {
            refuse(error, entryRefusal(original, QStringLiteral("bad port (must be 1-65535)")));
            return std::nullopt;
        }
        result.port = quint16(port);
        host.truncate(colon);
    }
    if (host.endsWith(QLatin1Char('.')))
        host.chop(1);
    const auto refuseIp = [&] {
        refuse(error, entryRefusal(original, QStringLiteral("IP literals are not allowed; use a "
                                                            "domain name")));
        return std::nullopt;
    };
    if (TargetParser::looksLikeIpLiteral(host.toUtf8()))
        return refuseIp();
    const QString ace = QString::fromLatin1(QUrl::toAce(host));
    if (ace.isEmpty()) {
        refuse(error, entryRefusal(original, QStringLiteral("not a valid domain name")));
        return std::nullopt;
    }
    // IDNA mapping can turn e.g. full-width digits into ASCII ones: check again.
    if (TargetParser::looksLikeIpLiteral(ace.toLatin1()))
        return refuseIp();
    const QStringList labels = ace.split(QLatin1Char('.'));
    if (labels.size() < 2) {
        refuse(error, entryRefusal(original, QStringLiteral("a single label is not allowed; "
                                                            "name a domain such as example.org")));
        return std::nullopt;
    }
    if (ace.size() > 253 || !std::all_of(labels.begin(), labels.end(), isLdhLabel)) {
        refuse(error, entryRefusal(original, QStringLiteral("labels must be letters, digits and "
                                                            "inner hyphens, 1-63 characters")));
        return std::nullopt;
    }
    result.host = ace;
    return result;
}

std::optional<Cidr> parseCidrEntry(const QJsonValue& value, ApiError* error) {
    if (!value.isString()) {
        refuse(error, QStringLiteral("allowPrivateCidrs entries must be strings"));
        return std::nullopt;
    }
    const Cidr cidr = Cidr::parse(value.toString().trimmed());
    if (!cidr.isValid()) {
        refuse(error, QStringLiteral("allowPrivateCidrs entry \"%1\" is not an address prefix "
                                     "such as 10.0.0.0/8 or fd00::/8")
                          .arg(value.toString()));
        return std::nullopt;
    }
    return cidr;
}

template <typename T, typename Parse>
bool parseList(const QJsonObject& object, const QString& key, QList<T>* out, Parse parse,
               ApiError* error) {
    const QJsonValue value = object.value(key);
    if (value.isUndefined() || value.isNull())
        return true;
    if (!value.isArray())
        return refuse(error, QStringLiteral("%1 must be an array of strings").arg(key));
    QStringList seen;
    for (const QJsonValue& element : value.toArray()) {
        const std::optional<T> parsed = parse(element, error);
        if (!parsed)
            return false;
        const QString text = parsed->toString();
        if (seen.contains(text))
            continue;
        seen.append(text);
        out->append(*parsed);
    }
    std::sort(out->begin(), out->end(),
              [](const T& a, const T& b) { return a.toString() < b.toString(); });
    return true;
}

template <typename T> QJsonArray toJsonArray(const QList<T>& items) {
    QJsonArray array;
    for (const T& item : items)
        array.append(item.toString());
    return array;
}

} // namespace

QString DomainEntry::toString() const {
    QString text = wildcard ? QStringLiteral("*.") + host : host;
    if (port != 0)
        text += QLatin1Char(':') + QString::number(port);
    return text;
}

bool DomainEntry::matches(const QString& targetHost, quint16 targetPort) const {
    if (port != 0 && port != targetPort)
        return false;
    if (!wildcard)
        return targetHost == host;
    // "*.example.org": strictly below example.org, whole labels only.
    return targetHost.size() > host.size() + 1 && targetHost.endsWith(host) &&
           targetHost.at(targetHost.size() - host.size() - 1) == QLatin1Char('.');
}

std::optional<NetworkPolicy> NetworkPolicy::fromJson(const QJsonObject& object, ApiError* error) {
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (it.key() != kModeKey && it.key() != kDomainsKey && it.key() != kCidrsKey &&
            it.key() != kRevisionKey) {
            refuse(error, QStringLiteral("unknown field \"%1\" in network policy").arg(it.key()));
            return std::nullopt;
        }
    }
    NetworkPolicy policy;
    const QString mode = object.value(kModeKey).toString();
    if (mode == QLatin1String("none")) {
        policy.m_mode = Mode::None;
    } else if (mode == QLatin1String("domain-allowlist")) {
        policy.m_mode = Mode::DomainAllowlist;
    } else {
        refuse(error, QStringLiteral("mode must be \"none\" or \"domain-allowlist\""));
        return std::nullopt;
    }
    if (!parseList(object, kDomainsKey, &policy.m_allowedDomains, parseDomainEntry, error) ||
        !parseList(object, kCidrsKey, &policy.m_allowPrivateCidrs, parseCidrEntry, error))
        return std::nullopt;
    if (policy.m_mode == Mode::DomainAllowlist && policy.m_allowedDomains.isEmpty()) {
        refuse(error, QStringLiteral("domain-allowlist needs at least one allowedDomains entry"));
        return std::nullopt;
    }
    policy.updateRevision();
    return policy;
}

QString NetworkPolicy::toString(Mode mode) {
    return mode == Mode::None ? QStringLiteral("none") : QStringLiteral("domain-allowlist");
}

QByteArray NetworkPolicy::canonicalJson() const {
    QJsonObject object; // QJsonObject keeps keys sorted: the output is canonical.
    object.insert(kModeKey, toString(m_mode));
    object.insert(kDomainsKey, toJsonArray(m_allowedDomains));
    object.insert(kCidrsKey, toJsonArray(m_allowPrivateCidrs));
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QJsonObject NetworkPolicy::toJson() const {
    QJsonObject object = QJsonDocument::fromJson(canonicalJson()).object();
    object.insert(kRevisionKey, m_revision);
    return object;
}

void NetworkPolicy::updateRevision() {
    m_revision = m_mode == Mode::None ? QStringLiteral("none")
                                      : QString::fromLatin1(crypto::sha256Hex(canonicalJson()));
}

bool NetworkPolicy::allows(const QString& host, quint16 port) const {
    if (m_mode != Mode::DomainAllowlist)
        return false;
    QString target = host.toLower();
    if (target.endsWith(QLatin1Char('.')))
        target.chop(1);
    if (target.isEmpty() || TargetParser::looksLikeIpLiteral(target.toUtf8()))
        return false;
    return std::any_of(m_allowedDomains.begin(), m_allowedDomains.end(),
                       [&](const DomainEntry& entry) { return entry.matches(target, port); });
}

} // namespace runbox::egress
