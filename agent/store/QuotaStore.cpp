#include "agent/store/QuotaStore.h"

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

std::optional<Error> QuotaStore::fromStored(const QHash<QString, QJsonValue>& stored,
                                            QuotaSettings* out) {
    QJsonObject object;
    for (const QuotaSettings::Field& field : QuotaSettings::fields()) {
        const auto it = stored.constFind(keyOf(field));
        if (it != stored.constEnd())
            object.insert(field.name, *it);
    }
    if (auto error = QuotaSettings::fromJson(object, QuotaSettings{}, out))
        return Error{ErrorKind::Internal, QStringLiteral("store_error"),
                     QStringLiteral("stored quotas are invalid: %1").arg(error->message)};
    return std::nullopt;
}

std::optional<Error> QuotaStore::initialize(const QuotaSettings::Seeds& seeds, qint64 nowMs,
                                            QStringList* warnings) {
    QuotaSettings seeded;
    if (auto error = QuotaSettings::fromSeeds(seeds, QuotaSettings{}, &seeded))
        return error;
    QHash<QString, QJsonValue> before;
    if (auto error = m_setting.repository().getAll(m_setting.prefix(), &before))
        return error;
    if (auto error = m_setting.repository().seedMissing(toChanges(seeded),
                                                        QLatin1String(kSeedTokenId), nowMs))
        return error;
    if (auto error = m_setting.load(fromStored))
        return error;
    const QuotaSettings loaded = m_setting.current();
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
    return std::nullopt;
}

QuotaSettings QuotaStore::current() const {
    return m_setting.current();
}

std::optional<Error> QuotaStore::update(const QJsonObject& patch, const QString& tokenId,
                                        qint64 nowMs, QuotaSettings* applied) {
    return m_setting.update(
        [&](const QHash<QString, QJsonValue>& stored, QList<SettingChange>* changes,
            QuotaSettings* result) {
            QuotaSettings base;
            if (auto invalid = fromStored(stored, &base))
                return invalid;
            if (auto invalid = QuotaSettings::fromJson(patch, base, result))
                return invalid;
            if (auto invalid = result->validateForHost(m_pidMax))
                return invalid;
            *changes = toChanges(*result);
            return std::optional<Error>();
        },
        tokenId, nowMs, applied);
}

std::optional<Error> QuotaStore::lastChange(std::optional<AuditEntry>* out) const {
    return m_setting.lastChange(out);
}

std::optional<Error> QuotaStore::history(qint64 beforeId, int limit, QList<AuditEntry>* out) const {
    return m_setting.history(beforeId, limit, out);
}

} // namespace runbox::store
