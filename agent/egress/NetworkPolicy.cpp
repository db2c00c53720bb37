#include "agent/egress/NetworkPolicy.h"

#include "shared/Crypto.h"
#include "shared/NetworkPolicyGrammar.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>

namespace runbox::egress {

namespace {

const QString kModeKey = QStringLiteral("mode");
const QString kDomainsKey = QStringLiteral("allowedDomains");
const QString kCidrsKey = QStringLiteral("allowPrivateCidrs");
const QString kRevisionKey = QStringLiteral("revision");

bool refuse(Error* error, const QString& message) {
    if (error)
        *error =
            Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_network_policy"), message};
    return false;
}

QString entryRefusal(const QString& entry, const QString& why) {
    return QStringLiteral("allowedDomains entry \"%1\": %2").arg(entry, why);
}

// The grammar is the shared one (shared/NetworkPolicyGrammar), so the console and the CLI accept
// and refuse exactly what the agent does.
std::optional<DomainEntry> parseDomainEntry(const QJsonValue& value, Error* error) {
    if (!value.isString()) {
        refuse(error, QStringLiteral("allowedDomains entries must be strings"));
        return std::nullopt;
    }
    const QString original = value.toString();
    if (original.trimmed().isEmpty()) {
        refuse(error, QStringLiteral("allowedDomains contains an empty entry"));
        return std::nullopt;
    }
    QString why;
    std::optional<DomainEntry> rule = NetworkPolicyGrammar::parseDomain(original, &why);
    if (!rule)
        refuse(error, entryRefusal(original, why));
    return rule;
}

std::optional<Cidr> parseCidrEntry(const QJsonValue& value, Error* error) {
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
               Error* error) {
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

std::optional<NetworkPolicy> NetworkPolicy::fromJson(const QJsonObject& object, Error* error) {
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
    if (NetworkPolicyGrammar::looksLikeIpLiteral(host))
        return false;
    const QString target = NetworkPolicyGrammar::canonicalHost(host);
    if (target.isEmpty())
        return false;
    return std::any_of(m_allowedDomains.begin(), m_allowedDomains.end(),
                       [&](const DomainEntry& entry) { return entry.matches(target, port); });
}

} // namespace runbox::egress
