#include "agent/egress/NetworkPolicyStore.h"

#include <QJsonDocument>

namespace runbox::egress {

namespace {

QString key() {
    return QLatin1String(NetworkPolicyStore::kKey);
}

/// What is stored: the canonical policy without its (derived) revision.
QJsonObject storedForm(const NetworkPolicy& policy) {
    return QJsonDocument::fromJson(policy.canonicalJson()).object();
}

} // namespace

std::optional<Error> NetworkPolicyStore::fromStored(const QHash<QString, QJsonValue>& stored,
                                                    NetworkPolicy* out) {
    const auto it = stored.constFind(key());
    if (it == stored.constEnd()) {
        *out = NetworkPolicy();
        return std::nullopt;
    }
    Error error;
    const std::optional<NetworkPolicy> policy = NetworkPolicy::fromJson(it->toObject(), &error);
    if (!policy || !it->isObject())
        return Error{ErrorKind::Internal, QStringLiteral("store_error"),
                     QStringLiteral("the stored network policy is invalid: %1")
                         .arg(it->isObject() ? error.message : QStringLiteral("not an object"))};
    *out = *policy;
    return std::nullopt;
}

std::optional<Error> NetworkPolicyStore::initialize() {
    return m_setting.load(fromStored);
}

NetworkPolicy NetworkPolicyStore::current() const {
    return m_setting.current();
}

std::optional<Error> NetworkPolicyStore::update(const QJsonObject& body, const QString& tokenId,
                                                qint64 nowMs, NetworkPolicy* applied) {
    Error invalid;
    const std::optional<NetworkPolicy> policy = NetworkPolicy::fromJson(body, &invalid);
    if (!policy)
        return invalid;
    const QJsonObject value = storedForm(*policy);
    const QJsonObject defaultValue = storedForm(NetworkPolicy());
    return m_setting.update(
        [&](const QHash<QString, QJsonValue>& stored, QList<store::SettingChange>* changes,
            NetworkPolicy* result) {
            *result = *policy;
            // Setting the default while nothing is stored leaves no row and no audit entry.
            if (!stored.contains(key()) && value == defaultValue)
                return std::optional<Error>();
            changes->append(store::SettingChange{key(), value});
            return std::optional<Error>();
        },
        tokenId, nowMs, applied);
}

std::optional<Error> NetworkPolicyStore::lastChange(std::optional<store::AuditEntry>* out) const {
    return m_setting.lastChange(out);
}

} // namespace runbox::egress
