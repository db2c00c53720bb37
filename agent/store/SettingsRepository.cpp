#include "agent/store/SettingsRepository.h"

#include "agent/store/ExecutionRecord.h"
#include "agent/store/Transaction.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>

namespace runbox::store {

namespace {

/// A JSON value as text. QJsonDocument holds only arrays and objects, so the value travels
/// inside a one-element array whose brackets are cut off.
QString valueText(const QJsonValue& value) {
    const QByteArray array = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(array.mid(1, array.size() - 2));
}

QJsonValue valueFrom(const QVariant& text) {
    if (text.isNull())
        return QJsonValue(QJsonValue::Null);
    const QJsonArray array = QJsonDocument::fromJson('[' + text.toString().toUtf8() + ']').array();
    return array.isEmpty() ? QJsonValue(QJsonValue::Null) : array.at(0);
}

bool readAll(QSqlDatabase db, const QString& prefix, QHash<QString, QJsonValue>* out,
             Error* error) {
    QSqlQuery query(db);
    query.prepare(QStringLiteral("SELECT key, value FROM settings WHERE substr(key, 1, ?) = ?"));
    query.addBindValue(prefix.size());
    query.addBindValue(sqlText(prefix));
    if (!execQuery(query, QStringLiteral("read settings"), error))
        return false;
    out->clear();
    while (query.next())
        out->insert(query.value(0).toString(), valueFrom(query.value(1)));
    return true;
}

/// Upserts @p changes and writes an audit row for each that differs from @p current.
bool writeChanges(Transaction& tx, const QHash<QString, QJsonValue>& current,
                  const QList<SettingChange>& changes, const QString& tokenId, qint64 atMs,
                  QList<AuditEntry>* written, Error* error) {
    QSqlQuery upsert =
        tx.prepare(QStringLiteral("INSERT INTO settings (key, value, updated_ms) VALUES (?, ?, ?)"
                                  " ON CONFLICT(key) DO UPDATE SET value = excluded.value, "
                                  "updated_ms = excluded.updated_ms"));
    QSqlQuery audit = tx.prepare(QStringLiteral("INSERT INTO audit (at_ms, token_id, key, "
                                                "before_json, after_json) VALUES (?, ?, ?, ?, ?)"));
    for (const SettingChange& change : changes) {
        const auto it = current.constFind(change.key);
        const bool existed = it != current.constEnd();
        if (existed && *it == change.value)
            continue;
        upsert.addBindValue(change.key);
        upsert.addBindValue(valueText(change.value));
        upsert.addBindValue(atMs);
        if (!execQuery(upsert, QStringLiteral("write setting"), error))
            return false;
        audit.addBindValue(atMs);
        audit.addBindValue(sqlText(tokenId));
        audit.addBindValue(change.key);
        audit.addBindValue(existed ? QVariant(valueText(*it)) : QVariant());
        audit.addBindValue(valueText(change.value));
        if (!execQuery(audit, QStringLiteral("write audit"), error))
            return false;
        if (written)
            written->append(AuditEntry{audit.lastInsertId().toLongLong(), atMs, tokenId, change.key,
                                       existed ? *it : QJsonValue(QJsonValue::Null), change.value});
    }
    return true;
}

qint64 nowOr(qint64 ms) {
    return ms > 0 ? ms : QDateTime::currentMSecsSinceEpoch();
}

} // namespace

bool writeAuditRow(Transaction& tx, AuditEntry* entry, Error* error) {
    QSqlQuery audit = tx.prepare(QStringLiteral("INSERT INTO audit (at_ms, token_id, key, "
                                                "before_json, after_json) VALUES (?, ?, ?, ?, ?)"));
    audit.addBindValue(entry->atMs);
    audit.addBindValue(sqlText(entry->tokenId));
    audit.addBindValue(entry->key);
    audit.addBindValue(entry->before.isNull() ? QVariant() : QVariant(valueText(entry->before)));
    audit.addBindValue(valueText(entry->after));
    if (!execQuery(audit, QStringLiteral("write audit"), error))
        return false;
    entry->id = audit.lastInsertId().toLongLong();
    return true;
}

QJsonObject AuditEntry::toJson() const {
    return QJsonObject{
        {QStringLiteral("id"), id},           {QStringLiteral("at"), isoTimestamp(atMs)},
        {QStringLiteral("tokenId"), tokenId}, {QStringLiteral("key"), key},
        {QStringLiteral("before"), before},   {QStringLiteral("after"), after}};
}

std::optional<Error> SettingsRepository::getAll(const QString& prefix,
                                                QHash<QString, QJsonValue>* out) const {
    Error error;
    if (!readAll(m_database.connection(), prefix, out, &error))
        return error;
    return std::nullopt;
}

std::optional<Error> SettingsRepository::set(const QList<SettingChange>& changes,
                                             const QString& tokenId, qint64 atMs,
                                             QList<AuditEntry>* written) {
    return modify(
        QString(),
        [&changes](const QHash<QString, QJsonValue>&, QList<SettingChange>* out) {
            *out = changes;
            return std::optional<Error>();
        },
        tokenId, atMs, written);
}

std::optional<Error> SettingsRepository::modify(const QString& prefix, const Decision& decide,
                                                const QString& tokenId, qint64 atMs,
                                                QList<AuditEntry>* written) {
    Transaction tx(m_database, Durability::Acknowledged);
    if (!tx.begun())
        return tx.error();
    Error error;
    QHash<QString, QJsonValue> current;
    if (!readAll(tx.db(), prefix, &current, &error))
        return error;
    QList<SettingChange> changes;
    if (auto refused = decide(current, &changes))
        return refused;
    for (const SettingChange& change : std::as_const(changes)) {
        if (!change.key.startsWith(prefix) || change.key.isEmpty())
            return Error{ErrorKind::Internal, QStringLiteral("store_error"),
                         QStringLiteral("setting %1 is outside %2").arg(change.key, prefix)};
    }
    QList<AuditEntry> entries;
    if (!writeChanges(tx, current, changes, tokenId, nowOr(atMs), &entries, &error))
        return error;
    if (const auto failed = tx.commit())
        return failed;
    if (written)
        *written = entries;
    return std::nullopt;
}

std::optional<Error> SettingsRepository::seedMissing(const QList<SettingChange>& values,
                                                     const QString& tokenId, qint64 atMs,
                                                     QList<AuditEntry>* written) {
    return modify(
        QString(),
        [&values](const QHash<QString, QJsonValue>& current, QList<SettingChange>* out) {
            for (const SettingChange& value : values) {
                if (!current.contains(value.key))
                    out->append(value);
            }
            return std::optional<Error>();
        },
        tokenId, atMs, written);
}

std::optional<Error> SettingsRepository::audit(const QString& prefix, qint64 beforeId, int limit,
                                               QList<AuditEntry>* out) const {
    if (limit < 1 || limit > 1000)
        return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_filter"),
                     QStringLiteral("limit must be 1..1000")};
    QSqlQuery query(m_database.connection());
    query.prepare(QStringLiteral(
        "SELECT id, at_ms, token_id, key, before_json, after_json FROM audit"
        " WHERE substr(key, 1, ?) = ? AND (? <= 0 OR id < ?) ORDER BY id DESC LIMIT ?"));
    query.addBindValue(prefix.size());
    query.addBindValue(sqlText(prefix));
    query.addBindValue(beforeId);
    query.addBindValue(beforeId);
    query.addBindValue(limit);
    Error error;
    if (!execQuery(query, QStringLiteral("read audit"), &error))
        return error;
    out->clear();
    while (query.next())
        out->append(AuditEntry{query.value(0).toLongLong(), query.value(1).toLongLong(),
                               query.value(2).toString(), query.value(3).toString(),
                               valueFrom(query.value(4)), valueFrom(query.value(5))});
    return std::nullopt;
}

std::optional<Error> SettingsRepository::lastChange(const QString& prefix,
                                                    std::optional<AuditEntry>* out) const {
    QList<AuditEntry> entries;
    if (auto error = audit(prefix, 0, 1, &entries))
        return error;
    *out = entries.isEmpty() ? std::nullopt : std::optional<AuditEntry>(entries.constFirst());
    return std::nullopt;
}

} // namespace runbox::store
