#pragma once

#include "agent/store/SettingsRepository.h"

#include <QMutex>
#include <QMutexLocker>

#include <functional>
#include <optional>

namespace runbox::store {

/// One setting kept in the settings table under the keys starting with @c prefix, with its audit
/// trail (SettingsRepository), and its value in force cached in memory: the mechanism shared by
/// the quota settings (QuotaStore) and the network policy (egress::NetworkPolicyStore).
///
/// current() is served from memory and is thread-safe; load() and update() write through and then
/// replace the cache, update() calls are serialised so the cache follows the commit order.
template <typename Value> class AuditedSetting final {
public:
    /// Turns the stored rows (key → JSON) into the value, or an error (Internal store_error for
    /// a stored value that no longer parses).
    using FromStored =
        std::function<std::optional<Error>(const QHash<QString, QJsonValue>& stored, Value*)>;
    /// Decides an update from the stored rows: the rows to write (one audit row each that changes)
    /// and the value then in force, or an error that aborts the transaction.
    using Decide = std::function<std::optional<Error>(const QHash<QString, QJsonValue>& stored,
                                                      QList<SettingChange>* changes, Value*)>;

    AuditedSetting(const Database& database, QString prefix)
        : m_settings(database), m_prefix(std::move(prefix)) {}

    /// The value in force (a default-constructed Value before load()).
    Value current() const {
        QMutexLocker lock(&m_mutex);
        return m_current;
    }

    /// Reads the stored rows through @p fromStored into the cache. Errors: those of
    /// @p fromStored, store errors (the cache is then unchanged).
    std::optional<Error> load(const FromStored& fromStored) {
        QHash<QString, QJsonValue> stored;
        if (auto error = m_settings.getAll(m_prefix, &stored))
            return error;
        Value loaded;
        if (auto error = fromStored(stored, &loaded))
            return error;
        QMutexLocker lock(&m_mutex);
        m_current = loaded;
        return std::nullopt;
    }

    /// One read-modify-write as @p tokenId at @p nowMs (0 = now) in one transaction with its
    /// audit rows; on success the cache and @p applied (optional) get the value now in force.
    std::optional<Error> update(const Decide& decide, const QString& tokenId, qint64 nowMs,
                                Value* applied) {
        QMutexLocker serial(&m_updateMutex);
        Value result;
        const auto error = m_settings.modify(
            m_prefix,
            [&](const QHash<QString, QJsonValue>& stored, QList<SettingChange>* changes) {
                return decide(stored, changes, &result);
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

    /// The newest change of this setting, std::nullopt in @p out if it was never changed.
    std::optional<Error> lastChange(std::optional<AuditEntry>* out) const {
        return m_settings.lastChange(m_prefix, out);
    }
    /// Changes, newest first (see SettingsRepository::audit()).
    std::optional<Error> history(qint64 beforeId, int limit, QList<AuditEntry>* out) const {
        return m_settings.audit(m_prefix, beforeId, limit, out);
    }

    /// The rows themselves, for what the setting does beyond load and update (seeding).
    SettingsRepository& repository() { return m_settings; }
    const QString& prefix() const { return m_prefix; }

private:
    SettingsRepository m_settings;
    QString m_prefix;
    QMutex m_updateMutex; ///< update() calls, so m_current follows the commit order
    mutable QMutex m_mutex;
    Value m_current;
};

} // namespace runbox::store
