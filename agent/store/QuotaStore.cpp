#include "agent/store/QuotaStore.h"

#include <QMutexLocker>

namespace runbox::store {

namespace {

QString keyOf(const QuotaSettings::Field& field) {
    return QLatin1String(QuotaStore::kKeyPrefix) + field.name;
}

} // namespace

QList<SettingChange> QuotaStore::toChanges(const QuotaSettings& settings) {
    QList<SettingChange> changes;
    for (const QuotaSettings::Field& field : QuotaSettings::fields())
        changes.append(SettingChange{keyOf(field), QJsonValue(settings.*field.member)});
    return changes;
}

std::optional<ApiError> QuotaStore::fromStored(const QHash<QString, QJsonValue>& stored,
                                               QuotaSettings* out) {
    QJsonObject object;
    for (const QuotaSettings::Field& field : QuotaSettings::fields()) {
        const auto it = stored.constFind(keyOf(field));
        if (it != stored.constEnd())
            object.insert(field.name, *it);
    }
    if (auto error = QuotaSettings::fromJson(object, QuotaSettings{}, out))
        return ApiError{500, QStringLiteral("store_error"),
                        QStringLiteral("stored quotas are invalid: %1").arg(error->message)};
    return std::nullopt;
}

std::optional<ApiError> QuotaStore::initialize(const QuotaSettings::Seeds& seeds, qint64 nowMs,
                                               QStringList* warnings) {
    QuotaSettings seeded;
    if (auto error = QuotaSettings::fromSeeds(seeds, QuotaSettings{}, &seeded))
        return error;
    QHash<QString, QJsonValue> before;
    if (auto error = m_settings.getAll(QLatin1String(kKeyPrefix), &before))
        return error;
    if (auto error = m_settings.seedMissing(toChanges(seeded), QLatin1String(kSeedTokenId), nowMs))
        return error;
    QHash<QString, QJsonValue> stored;
    if (auto error = m_settings.getAll(QLatin1String(kKeyPrefix), &stored))
        return error;
    QuotaSettings loaded;
    if (auto error = fromStored(stored, &loaded))
        return error;
    if (warnings) {
        for (const QuotaSettings::Field& field : QuotaSettings::fields()) {
            if (seeds.contains(field.name) && before.contains(keyOf(field)) &&
                seeded.*field.member != loaded.*field.member)
                warnings->append(QStringLiteral("%1 ignored: the stored %2 (%3) is in force; "
                                                "change it through /v1/settings/quotas")
                                     .arg(field.envVar, field.name)
                                     .arg(loaded.*field.member));
        }
    }
    QMutexLocker lock(&m_mutex);
    m_current = loaded;
    return std::nullopt;
}

QuotaSettings QuotaStore::current() const {
    QMutexLocker lock(&m_mutex);
    return m_current;
}

std::optional<ApiError> QuotaStore::update(const QJsonObject& patch, const QString& tokenId,
                                           qint64 nowMs, QuotaSettings* applied) {
    QMutexLocker serial(&m_updateMutex);
    QuotaSettings result;
    const auto error = m_settings.modify(
        QLatin1String(kKeyPrefix),
        [&](const QHash<QString, QJsonValue>& stored, QList<SettingChange>* changes) {
            QuotaSettings base;
            if (auto invalid = fromStored(stored, &base))
                return invalid;
            if (auto invalid = QuotaSettings::fromJson(patch, base, &result))
                return invalid;
            *changes = toChanges(result);
            return std::optional<ApiError>();
        },
        tokenId, nowMs);
    if (error)
        return error;
    QMutexLocker lock(&m_mutex);
    m_current = result;
    if (applied)
        *applied = result;
    return std::nullopt;
}

std::optional<ApiError> QuotaStore::lastChange(std::optional<AuditEntry>* out) const {
    return m_settings.lastChange(QLatin1String(kKeyPrefix), out);
}

std::optional<ApiError> QuotaStore::history(qint64 beforeId, int limit,
                                            QList<AuditEntry>* out) const {
    return m_settings.audit(QLatin1String(kKeyPrefix), beforeId, limit, out);
}

} // namespace runbox::store
