#include "agent/egress/NetworkPolicyStore.h"

#include <QJsonDocument>
#include <QMutexLocker>

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

std::optional<ApiError> NetworkPolicyStore::fromStored(const QHash<QString, QJsonValue>& stored,
                                                       NetworkPolicy* out) {
    const auto it = stored.constFind(key());
    if (it == stored.constEnd()) {
        *out = NetworkPolicy();
        return std::nullopt;
    }
    ApiError error;
    const std::optional<NetworkPolicy> policy = NetworkPolicy::fromJson(it->toObject(), &error);
    if (!policy || !it->isObject())
        return ApiError{500, QStringLiteral("store_error"),
                        QStringLiteral("the stored network policy is invalid: %1")
                            .arg(it->isObject() ? error.message : QStringLiteral("not an object"))};
    *out = *policy;
    return std::nullopt;
}

std::optional<ApiError> NetworkPolicyStore::initialize() {
    QHash<QString, QJsonValue> stored;
    if (auto error = m_settings.getAll(key(), &stored))
        return error;
    NetworkPolicy loaded;
    if (auto error = fromStored(stored, &loaded))
        return error;
    QMutexLocker lock(&m_mutex);
    m_current = loaded;
    return std::nullopt;
}

NetworkPolicy NetworkPolicyStore::current() const {
    QMutexLocker lock(&m_mutex);
    return m_current;
}

std::optional<ApiError> NetworkPolicyStore::update(const QJsonObject& body, const QString& tokenId,
                                                   qint64 nowMs, NetworkPolicy* applied) {
    ApiError invalid;
    const std::optional<NetworkPolicy> policy = NetworkPolicy::fromJson(body, &invalid);
    if (!policy)
        return invalid;
    QMutexLocker serial(&m_updateMutex);
    const QJsonObject value = storedForm(*policy);
    const QJsonObject defaultValue = storedForm(NetworkPolicy());
    const auto error = m_settings.modify(
        key(),
        [&](const QHash<QString, QJsonValue>& stored, QList<store::SettingChange>* changes) {
            // Setting the default while nothing is stored leaves no row and no audit entry.
            if (!stored.contains(key()) && value == defaultValue)
                return std::optional<ApiError>();
            changes->append(store::SettingChange{key(), value});
            return std::optional<ApiError>();
        },
        tokenId, nowMs);
    if (error)
        return error;
    QMutexLocker lock(&m_mutex);
    m_current = *policy;
    if (applied)
        *applied = *policy;
    return std::nullopt;
}

std::optional<ApiError>
NetworkPolicyStore::lastChange(std::optional<store::AuditEntry>* out) const {
    return m_settings.lastChange(key(), out);
}

} // namespace runbox::egress
