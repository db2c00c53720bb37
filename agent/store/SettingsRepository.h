#pragma once

#include "agent/Error.h"
#include "agent/store/Database.h"

#include <QHash>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>

#include <functional>
#include <optional>

namespace runbox::store {

/// One row of the audit trail: who changed which setting from what to what, and when.
struct AuditEntry {
    qint64 id = 0;     ///< increasing
    qint64 atMs = 0;   ///< ms since the epoch
    QString tokenId;   ///< who: the id of the token (never the token), or "agent:…" for seeding
    QString key;       ///< e.g. "quota.maxOutputBytes"
    QJsonValue before; ///< null when the key did not exist
    QJsonValue after;
    /// `{"id","at" (ISO),"tokenId","key","before","after"}`.
    QJsonObject toJson() const;
};

class Transaction;

/// Writes @p entry (its atMs, tokenId, key, before, after) as one audit row inside @p tx, for a
/// change of the agent's state that is not a setting (a retention pass,
/// store::ExecutionRetention), so the row commits with the change. Sets entry->id; false with
/// @p error on a store error.
bool writeAuditRow(Transaction& tx, AuditEntry* entry, Error* error);

/// A value to store under a key.
struct SettingChange {
    QString key;
    QJsonValue value;
};

/// The settings table (key → JSON value) and its audit trail. Every write of a value writes its
/// audit row in the same transaction (Durability::Acknowledged), so neither exists without the
/// other. Values that do not change are not written and leave no audit row. Thread-safe.
class SettingsRepository final {
public:
    explicit SettingsRepository(const Database& database) : m_database(database) {}

    /// Every stored key starting with @p prefix and its value.
    std::optional<Error> getAll(const QString& prefix, QHash<QString, QJsonValue>* out) const;

    /// Sets each key to its value, as @p tokenId at @p atMs (0 → now). @p written (optional)
    /// receives the audit entries of the keys that changed.
    std::optional<Error> set(const QList<SettingChange>& changes, const QString& tokenId,
                             qint64 atMs, QList<AuditEntry>* written = nullptr);

    /// A read-modify-write in one transaction: @p decide gets the current values under
    /// @p prefix and returns the changes to write, or an error that aborts with nothing written.
    /// Concurrent modify() calls are serialised by SQLite's write lock, so none is lost.
    using Decision = std::function<std::optional<Error>(const QHash<QString, QJsonValue>& current,
                                                        QList<SettingChange>* changes)>;
    std::optional<Error> modify(const QString& prefix, const Decision& decide,
                                const QString& tokenId, qint64 atMs,
                                QList<AuditEntry>* written = nullptr);

    /// Writes only the keys that do not exist yet (first-start seeding), with audit rows.
    std::optional<Error> seedMissing(const QList<SettingChange>& values, const QString& tokenId,
                                     qint64 atMs, QList<AuditEntry>* written = nullptr);

    /// Audit entries of keys starting with @p prefix, newest first, at most @p limit (1..1000),
    /// only those with id < @p beforeId when it is > 0 (pagination).
    std::optional<Error> audit(const QString& prefix, qint64 beforeId, int limit,
                               QList<AuditEntry>* out) const;
    /// The newest audit entry under @p prefix, or std::nullopt in @p out when there is none.
    std::optional<Error> lastChange(const QString& prefix, std::optional<AuditEntry>* out) const;

private:
    const Database& m_database;
};

} // namespace runbox::store
