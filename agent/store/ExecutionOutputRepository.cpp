#include "agent/store/ExecutionOutputRepository.h"

#include "agent/store/Transaction.h"

#include <QVariant>

namespace runbox::store {

QJsonObject ExecutionOutput::toJson() const {
    return {{"path", path}, {"sizeBytes", sizeBytes}, {"sha256", sha256}};
}

std::optional<Error> ExecutionOutputRepository::record(const QString& executionId,
                                                       const QList<ExecutionOutput>& outputs) {
    if (outputs.isEmpty())
        return std::nullopt;
    Transaction tx(m_database, Durability::Normal);
    if (!tx.begun())
        return tx.error();
    QSqlQuery insert = tx.prepare(
        QStringLiteral("INSERT OR REPLACE INTO execution_outputs (execution_id, path, size_bytes,"
                       " sha256) VALUES (?, ?, ?, ?)"));
    Error error;
    for (const ExecutionOutput& output : outputs) {
        insert.addBindValue(executionId);
        insert.addBindValue(sqlText(output.path));
        insert.addBindValue(output.sizeBytes);
        insert.addBindValue(sqlText(output.sha256));
        if (!execQuery(insert, QStringLiteral("record execution outputs"), &error))
            return error;
    }
    return tx.commit();
}

std::optional<Error> ExecutionOutputRepository::list(const QString& executionId,
                                                     QList<ExecutionOutput>* out) const {
    out->clear();
    QSqlQuery query(m_database.connection());
    query.prepare(QStringLiteral("SELECT path, size_bytes, sha256 FROM execution_outputs"
                                 " WHERE execution_id = ? ORDER BY path"));
    query.addBindValue(executionId);
    Error error;
    if (!execQuery(query, QStringLiteral("list execution outputs"), &error))
        return error;
    while (query.next())
        out->append(
            {query.value(0).toString(), query.value(1).toLongLong(), query.value(2).toString()});
    return std::nullopt;
}

} // namespace runbox::store
