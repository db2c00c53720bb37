#include "agent/store/WorkspaceRepository.h"

#include "agent/store/Transaction.h"

#include <QDateTime>

namespace runbox::store {

namespace {

const QString kColumns = QStringLiteral(
    "id, isolation, created_ms, root_path, owner_token_id, token_nonce, uid, deleted_ms");

WorkspaceRecord readRecord(const QSqlQuery& query) {
    WorkspaceRecord r;
    r.id = query.value(0).toString();
    r.isolation = query.value(1).toString();
    r.createdMs = query.value(2).toLongLong();
    r.rootPath = query.value(3).toString();
    r.ownerTokenId = query.value(4).toString();
    r.tokenNonce = query.value(5).toString();
    if (!query.value(6).isNull())
        r.uid = query.value(6).toInt();
    if (!query.value(7).isNull())
        r.deletedMs = query.value(7).toLongLong();
    return r;
}

Error notFound(const QString& id) {
    return Error{ErrorKind::NotFound, QStringLiteral("workspace_not_found"),
                 QStringLiteral("no workspace %1").arg(id)};
}

/// Marks one live row deleted: binds deleted_ms, then id.
const QString kMarkDeleted =
    QStringLiteral("UPDATE workspaces SET deleted_ms = ? WHERE id = ? AND deleted_ms IS NULL");

} // namespace

std::optional<Error> WorkspaceRepository::insert(const QList<WorkspaceRecord>& workspaces) {
    return writeBatch(workspaces, {});
}

std::optional<Error> WorkspaceRepository::writeBatch(const QList<WorkspaceRecord>& workspaces,
                                                     const QList<QPair<QString, qint64>>& deleted) {
    for (const WorkspaceRecord& w : workspaces) {
        if (w.id.isEmpty() || w.rootPath.isEmpty() ||
            (w.isolation != QLatin1String("strong") && w.isolation != QLatin1String("light")))
            return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_workspace"),
                         QStringLiteral("a workspace needs an id, a root path and an isolation "
                                        "of strong or light")};
    }
    Transaction tx(m_database, Durability::Normal);
    if (!tx.begun())
        return tx.error();
    QSqlQuery& insert = tx.prepareCached(
        QStringLiteral("INSERT INTO workspaces (%1) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)"
                       " ON CONFLICT(id) DO NOTHING")
            .arg(kColumns));
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    Error error;
    for (const WorkspaceRecord& w : workspaces) {
        insert.addBindValue(w.id);
        insert.addBindValue(w.isolation);
        insert.addBindValue(w.createdMs > 0 ? w.createdMs : now);
        insert.addBindValue(w.rootPath);
        insert.addBindValue(sqlText(w.ownerTokenId));
        insert.addBindValue(sqlText(w.tokenNonce));
        insert.addBindValue(w.uid ? QVariant(*w.uid) : QVariant());
        if (!execQuery(insert, QStringLiteral("insert workspace"), &error))
            return error;
        if (insert.numRowsAffected() != 1)
            return Error{ErrorKind::Conflict, QStringLiteral("workspace_exists"),
                         QStringLiteral("workspace %1 already exists").arg(w.id)};
    }
    if (!deleted.isEmpty()) {
        QSqlQuery& update = tx.prepareCached(kMarkDeleted);
        for (const auto& [id, deletedMs] : deleted) {
            update.addBindValue(deletedMs > 0 ? deletedMs : now);
            update.addBindValue(id);
            if (!execQuery(update, QStringLiteral("delete workspace"), &error))
                return error;
        }
    }
    return tx.commit();
}

std::optional<Error> WorkspaceRepository::get(const QString& id, WorkspaceRecord* out) const {
    QSqlQuery query(m_database.connection());
    query.prepare(QStringLiteral("SELECT %1 FROM workspaces WHERE id = ?").arg(kColumns));
    query.addBindValue(id);
    Error error;
    if (!execQuery(query, QStringLiteral("read workspace"), &error))
        return error;
    if (!query.next())
        return notFound(id);
    *out = readRecord(query);
    return std::nullopt;
}

std::optional<Error> WorkspaceRepository::listLive(const QString& isolation,
                                                   QList<WorkspaceRecord>* out) const {
    QSqlQuery query(m_database.connection());
    query.prepare(QStringLiteral("SELECT %1 FROM workspaces WHERE deleted_ms IS NULL"
                                 " AND (? = '' OR isolation = ?) ORDER BY created_ms, id")
                      .arg(kColumns));
    query.addBindValue(sqlText(isolation));
    query.addBindValue(sqlText(isolation));
    Error error;
    if (!execQuery(query, QStringLiteral("list workspaces"), &error))
        return error;
    out->clear();
    while (query.next())
        out->append(readRecord(query));
    return std::nullopt;
}

std::optional<Error> WorkspaceRepository::markDeleted(const QString& id, qint64 deletedMs) {
    Transaction tx(m_database, Durability::Normal);
    if (!tx.begun())
        return tx.error();
    QSqlQuery& update = tx.prepareCached(kMarkDeleted);
    update.addBindValue(deletedMs > 0 ? deletedMs : QDateTime::currentMSecsSinceEpoch());
    update.addBindValue(id);
    Error error;
    if (!execQuery(update, QStringLiteral("delete workspace"), &error))
        return error;
    if (update.numRowsAffected() != 1)
        return notFound(id);
    return tx.commit();
}

std::optional<Error> WorkspaceRepository::setUid(const QString& id, int uid) {
    Transaction tx(m_database, Durability::Normal);
    if (!tx.begun())
        return tx.error();
    QSqlQuery& update =
        tx.prepareCached(QStringLiteral("UPDATE workspaces SET uid = ? WHERE id = ?"));
    update.addBindValue(uid);
    update.addBindValue(id);
    Error error;
    if (!execQuery(update, QStringLiteral("set workspace uid"), &error))
        return error;
    if (update.numRowsAffected() != 1)
        return notFound(id);
    return tx.commit();
}

} // namespace runbox::store
