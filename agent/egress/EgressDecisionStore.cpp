#include "agent/egress/EgressDecisionStore.h"

#include "agent/store/Transaction.h"

#include <QDateTime>
#include <QSqlQuery>
#include <QVariant>

#include <cstring>

namespace runbox::egress {

std::optional<Error> EgressDecisionStore::append(const EgressDecision& decision,
                                                 const QString& workspaceId) {
    store::Transaction tx(m_database, store::Durability::Normal);
    if (!tx.begun())
        return tx.error();
    QSqlQuery insert = tx.prepare(QStringLiteral(
        "INSERT INTO egress_decisions (execution_id, workspace_id, at_ms, host, port, allowed,"
        " reason, message, bytes_up, bytes_down) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    const QDateTime at = decision.at.isValid() ? decision.at : QDateTime::currentDateTimeUtc();
    insert.addBindValue(store::sqlText(decision.executionId));
    insert.addBindValue(store::sqlText(workspaceId));
    insert.addBindValue(at.toMSecsSinceEpoch());
    insert.addBindValue(store::sqlText(decision.host));
    insert.addBindValue(decision.port);
    insert.addBindValue(decision.allowed ? 1 : 0);
    insert.addBindValue(store::sqlText(decision.reason));
    insert.addBindValue(store::sqlText(decision.message));
    insert.addBindValue(decision.bytesUp);
    insert.addBindValue(decision.bytesDown);
    Error error;
    if (!store::execQuery(insert, QStringLiteral("record egress decision"), &error))
        return error;
    return tx.commit();
}

std::optional<Error> EgressDecisionStore::list(const QString& executionId, int limit,
                                               QList<EgressDecision>* out) const {
    return select("execution_id", executionId, limit, out);
}

std::optional<Error> EgressDecisionStore::listByWorkspace(const QString& workspaceId, int limit,
                                                          QList<EgressDecision>* out) const {
    return select("workspace_id", workspaceId, limit, out);
}

std::optional<Error> EgressDecisionStore::select(const char* column, const QString& value,
                                                 int limit, QList<EgressDecision>* out) const {
    if (limit < 1 || limit > 10000)
        return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_filter"),
                     QStringLiteral("limit must be 1..10000")};
    QSqlQuery query(m_database.connection());
    query.prepare(QStringLiteral("SELECT execution_id, at_ms, host, port, allowed, reason, message,"
                                 " bytes_up, bytes_down, workspace_id FROM egress_decisions"
                                 " WHERE %1 = ? ORDER BY id LIMIT ?")
                      .arg(QLatin1String(column)));
    query.addBindValue(store::sqlText(value));
    query.addBindValue(limit);
    Error error;
    if (!store::execQuery(query, QStringLiteral("read egress decisions"), &error))
        return error;
    out->clear();
    const bool withWorkspace = std::strcmp(column, "workspace_id") == 0;
    while (query.next()) {
        EgressDecision d;
        d.executionId = query.value(0).toString();
        d.at = QDateTime::fromMSecsSinceEpoch(query.value(1).toLongLong(), Qt::UTC);
        d.host = query.value(2).toString();
        d.port = query.value(3).toInt();
        d.allowed = query.value(4).toInt() != 0;
        d.reason = query.value(5).toString();
        d.message = query.value(6).toString();
        d.bytesUp = query.value(7).toLongLong();
        d.bytesDown = query.value(8).toLongLong();
        if (withWorkspace || d.executionId.isEmpty())
            d.workspaceId = query.value(9).toString();
        out->append(d);
    }
    return std::nullopt;
}

std::optional<Error> EgressDecisionStore::workspaceOf(const QString& executionId,
                                                      QString* out) const {
    QSqlQuery query(m_database.connection());
    query.prepare(QStringLiteral(
        "SELECT workspace_id FROM egress_decisions WHERE execution_id = ? ORDER BY id LIMIT 1"));
    query.addBindValue(store::sqlText(executionId));
    Error error;
    if (!store::execQuery(query, QStringLiteral("read egress decisions"), &error))
        return error;
    *out = query.next() ? query.value(0).toString() : QString();
    return std::nullopt;
}

} // namespace runbox::egress
