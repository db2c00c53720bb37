#include "agent/store/ExecutionRepository.h"

#include "agent/store/Transaction.h"
#include "shared/Crypto.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>

namespace runbox::store {

namespace {

constexpr int kMaxPageSize = 1000;

const QString kColumns = QStringLiteral(
    "seq, execution_id, client_supplied, workspace_id, kind, state, queue_position, created_ms,"
    " started_ms, finished_ms, exit_code, signal, duration_ms, status_reason, permission_epoch,"
    " provenance, created_files, modified_files, deleted_files, stdout_bytes, stderr_bytes,"
    " log_dropped_bytes, peak_memory_bytes, cpu_user_ms, cpu_system_ms, peak_processes");

qint64 nowOr(qint64 ms) {
    return ms > 0 ? ms : QDateTime::currentMSecsSinceEpoch();
}

QString jsonText(const QJsonObject& object) {
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

QString jsonText(const QStringList& list) {
    return QString::fromUtf8(
        QJsonDocument(QJsonArray::fromStringList(list)).toJson(QJsonDocument::Compact));
}

QJsonObject objectFrom(const QVariant& text) {
    return QJsonDocument::fromJson(text.toString().toUtf8()).object();
}

QStringList listFrom(const QVariant& text) {
    QStringList list;
    const QJsonArray array = QJsonDocument::fromJson(text.toString().toUtf8()).array();
    for (const QJsonValue& value : array)
        list.append(value.toString());
    return list;
}

template <typename T> QVariant optionalVariant(const std::optional<T>& value) {
    return value ? QVariant::fromValue(*value) : QVariant();
}

template <typename T> std::optional<T> optionalFrom(const QVariant& value) {
    if (value.isNull())
        return std::nullopt;
    return value.value<T>();
}

QString stateList(const QList<ExecutionState>& states) {
    QStringList quoted;
    for (const ExecutionState state : states)
        quoted.append(QLatin1Char('\'') + toString(state) + QLatin1Char('\''));
    return quoted.join(QLatin1Char(','));
}

ExecutionRecord readRecord(const QSqlQuery& query) {
    ExecutionRecord r;
    r.seq = query.value(0).toLongLong();
    r.executionId = query.value(1).toString();
    r.clientSuppliedId = query.value(2).toInt() != 0;
    r.workspaceId = query.value(3).toString();
    r.kind = executionKindFromString(query.value(4).toString()).value_or(ExecutionKind::Shell);
    r.state = executionStateFromString(query.value(5).toString()).value_or(ExecutionState::Lost);
    r.queuePosition = optionalFrom<int>(query.value(6));
    r.createdMs = query.value(7).toLongLong();
    r.startedMs = optionalFrom<qint64>(query.value(8));
    r.finishedMs = optionalFrom<qint64>(query.value(9));
    r.exitCode = optionalFrom<int>(query.value(10));
    r.signal = optionalFrom<int>(query.value(11));
    r.durationMs = optionalFrom<qint64>(query.value(12));
    r.statusReason = query.value(13).toString();
    r.permissionEpoch = objectFrom(query.value(14));
    r.provenance = objectFrom(query.value(15));
    r.createdFiles = listFrom(query.value(16));
    r.modifiedFiles = listFrom(query.value(17));
    r.deletedFiles = listFrom(query.value(18));
    r.logBytes.stdoutBytes = query.value(19).toLongLong();
    r.logBytes.stderrBytes = query.value(20).toLongLong();
    r.logBytes.droppedBytes = query.value(21).toLongLong();
    r.usage.peakMemoryBytes = optionalFrom<qint64>(query.value(22));
    r.usage.cpuUserMs = optionalFrom<qint64>(query.value(23));
    r.usage.cpuSystemMs = optionalFrom<qint64>(query.value(24));
    r.usage.peakProcesses = optionalFrom<int>(query.value(25));
    return r;
}

Error notFound(const QString& id) {
    return Error{ErrorKind::NotFound, QStringLiteral("execution_not_found"),
                 QStringLiteral("no execution %1").arg(id)};
}

/// Looks one row up on @p db. Returns false and sets @p error (404 or store error) if absent.
bool selectById(QSqlDatabase db, const QString& id, ExecutionRecord* out, Error* error) {
    QSqlQuery query(db);
    query.prepare(QStringLiteral("SELECT %1 FROM executions WHERE execution_id = ?").arg(kColumns));
    query.addBindValue(id);
    if (!execQuery(query, QStringLiteral("read execution"), error))
        return false;
    if (!query.next()) {
        *error = notFound(id);
        return false;
    }
    *out = readRecord(query);
    return true;
}

/// Whether retention removed @p id (its id stays in execution_tombstones forever): true with the
/// little that is left in @p out (id, workspace, kind, created and finished times). False with
/// @p error 404 when it never did, or a store error.
bool selectTombstone(QSqlDatabase db, const QString& id, ExecutionRecord* out, Error* error) {
    QSqlQuery query(db);
    query.prepare(QStringLiteral("SELECT workspace_id, kind, created_ms, finished_ms, removed_ms"
                                 " FROM execution_tombstones WHERE execution_id = ?"));
    query.addBindValue(id);
    if (!execQuery(query, QStringLiteral("read removed execution"), error))
        return false;
    if (!query.next()) {
        *error = notFound(id);
        return false;
    }
    out->executionId = id;
    out->workspaceId = query.value(0).toString();
    out->kind = executionKindFromString(query.value(1).toString()).value_or(ExecutionKind::Shell);
    out->createdMs = query.value(2).toLongLong();
    out->finishedMs = optionalFrom<qint64>(query.value(3));
    out->statusReason =
        QStringLiteral("removed by retention at %1").arg(isoTimestamp(query.value(4).toLongLong()));
    return true;
}

QString encodeCursor(qint64 createdMs, qint64 seq) {
    return QString::fromLatin1(
        QByteArray("c1:" + QByteArray::number(createdMs) + ':' + QByteArray::number(seq))
            .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

bool decodeCursor(const QString& cursor, qint64* createdMs, qint64* seq) {
    const auto decoded = QByteArray::fromBase64Encoding(
        cursor.toLatin1(), QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals |
                               QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return false;
    const QList<QByteArray> parts = decoded.decoded.split(':');
    if (parts.size() != 3 || parts.at(0) != "c1")
        return false;
    bool okCreated = false, okSeq = false;
    *createdMs = parts.at(1).toLongLong(&okCreated);
    *seq = parts.at(2).toLongLong(&okSeq);
    return okCreated && okSeq && *seq > 0;
}

} // namespace

bool ExecutionRepository::isValidExecutionId(const QString& id) {
    return store::isValidExecutionId(id);
}

QString ExecutionRepository::generateExecutionId() {
    return QStringLiteral("ex_") + QString::fromLatin1(crypto::randomBytes(16).toHex());
}

std::optional<Error> ExecutionRepository::insert(const NewExecution& execution, InsertResult* out) {
    const bool clientSupplied = !execution.executionId.isEmpty();
    if (clientSupplied && !isValidExecutionId(execution.executionId))
        return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_execution_id"),
                     QStringLiteral("executionId must be 1..128 characters of [A-Za-z0-9_.:-] "
                                    "starting with a letter or digit")};
    const QString id = clientSupplied ? execution.executionId : generateExecutionId();

    Transaction tx(m_database, Durability::Acknowledged);
    if (!tx.begun())
        return tx.error();
    Error error;
    // The key is checked first, so a replay answers 409 even once its workspace is gone.
    ExecutionRecord existing;
    if (selectById(tx.db(), id, &existing, &error) ||
        (error.kind == ErrorKind::NotFound && selectTombstone(tx.db(), id, &existing, &error))) {
        *out = InsertResult{existing, true};
        return std::nullopt;
    }
    if (error.kind != ErrorKind::NotFound)
        return error;

    QSqlQuery workspace =
        tx.prepare(QStringLiteral("SELECT deleted_ms IS NULL FROM workspaces WHERE id = ?"));
    workspace.addBindValue(execution.workspaceId);
    if (!execQuery(workspace, QStringLiteral("read workspace"), &error))
        return error;
    if (!workspace.next() || !workspace.value(0).toBool())
        return Error{ErrorKind::NotFound, QStringLiteral("workspace_not_found"),
                     QStringLiteral("no workspace %1").arg(execution.workspaceId)};

    QSqlQuery insert = tx.prepare(QStringLiteral(
        "INSERT INTO executions (execution_id, client_supplied, workspace_id, kind, state,"
        " queue_position, created_ms, permission_epoch, provenance)"
        " VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, ?)"));
    insert.addBindValue(id);
    insert.addBindValue(clientSupplied ? 1 : 0);
    insert.addBindValue(execution.workspaceId);
    insert.addBindValue(toString(execution.kind));
    insert.addBindValue(optionalVariant(execution.queuePosition));
    insert.addBindValue(nowOr(execution.createdMs));
    insert.addBindValue(jsonText(execution.permissionEpoch));
    insert.addBindValue(jsonText(execution.provenance));
    if (!execQuery(insert, QStringLiteral("insert execution"), &error))
        return error;
    ExecutionRecord stored;
    if (!selectById(tx.db(), id, &stored, &error))
        return error;
    if (const auto failed = tx.commit())
        return failed;
    *out = InsertResult{stored, false};
    return std::nullopt;
}

std::optional<Error> ExecutionRepository::transition(
    const QString& executionId, ExecutionState to, const QString& setClause,
    const QList<QPair<QString, QVariant>>& bindings, Durability durability) {
    Transaction tx(m_database, durability);
    if (!tx.begun())
        return tx.error();
    QSqlQuery update = tx.prepare(QStringLiteral("UPDATE executions SET state = :state, %1"
                                                 " WHERE execution_id = :id AND state IN (%2)")
                                      .arg(setClause, stateList(legalPredecessors(to))));
    update.bindValue(QStringLiteral(":state"), toString(to));
    update.bindValue(QStringLiteral(":id"), executionId);
    for (const auto& [name, value] : bindings)
        update.bindValue(name, value);
    Error error;
    if (!execQuery(update, QStringLiteral("update execution"), &error))
        return error;
    if (update.numRowsAffected() == 1)
        return tx.commit();
    ExecutionRecord current;
    if (!selectById(tx.db(), executionId, &current, &error))
        return error;
    return Error{ErrorKind::Conflict, QStringLiteral("illegal_transition"),
                 QStringLiteral("execution %1 is %2 and cannot become %3")
                     .arg(executionId, toString(current.state), toString(to))};
}

std::optional<Error> ExecutionRepository::markRunning(const QString& executionId, qint64 startedMs,
                                                      const QJsonObject& provenance) {
    return transition(executionId, ExecutionState::Running,
                      QStringLiteral("started_ms = :started, queue_position = NULL,"
                                     " provenance = :provenance"),
                      {{QStringLiteral(":started"), nowOr(startedMs)},
                       {QStringLiteral(":provenance"), jsonText(provenance)}},
                      Durability::Normal);
}

std::optional<Error> ExecutionRepository::finish(const QString& executionId,
                                                 const ExecutionOutcome& outcome) {
    if (!isTerminal(outcome.state))
        return Error{ErrorKind::Conflict, QStringLiteral("illegal_transition"),
                     QStringLiteral("%1 is not a final state").arg(toString(outcome.state))};
    const qint64 finishedMs = nowOr(outcome.finishedMs);
    return transition(
        executionId, outcome.state,
        QStringLiteral(
            "finished_ms = :finished, exit_code = :exit, signal = :signal,"
            " duration_ms = COALESCE(:duration, CASE WHEN started_ms IS NULL THEN NULL"
            "  ELSE :finished2 - started_ms END),"
            " status_reason = :reason, queue_position = NULL, created_files = :created,"
            " modified_files = :modified, deleted_files = :deleted, stdout_bytes = :stdout,"
            " stderr_bytes = :stderr, log_dropped_bytes = :dropped, peak_memory_bytes = :peak,"
            " cpu_user_ms = :user, cpu_system_ms = :system, peak_processes = :processes"),
        {{QStringLiteral(":finished"), finishedMs},
         {QStringLiteral(":finished2"), finishedMs},
         {QStringLiteral(":exit"), optionalVariant(outcome.exitCode)},
         {QStringLiteral(":signal"), optionalVariant(outcome.signal)},
         {QStringLiteral(":duration"), optionalVariant(outcome.durationMs)},
         {QStringLiteral(":reason"), sqlText(outcome.statusReason)},
         {QStringLiteral(":created"), jsonText(outcome.createdFiles)},
         {QStringLiteral(":modified"), jsonText(outcome.modifiedFiles)},
         {QStringLiteral(":deleted"), jsonText(outcome.deletedFiles)},
         {QStringLiteral(":stdout"), outcome.logBytes.stdoutBytes},
         {QStringLiteral(":stderr"), outcome.logBytes.stderrBytes},
         {QStringLiteral(":dropped"), outcome.logBytes.droppedBytes},
         {QStringLiteral(":peak"), optionalVariant(outcome.usage.peakMemoryBytes)},
         {QStringLiteral(":user"), optionalVariant(outcome.usage.cpuUserMs)},
         {QStringLiteral(":system"), optionalVariant(outcome.usage.cpuSystemMs)},
         {QStringLiteral(":processes"), optionalVariant(outcome.usage.peakProcesses)}},
        Durability::Acknowledged);
}

std::optional<Error>
ExecutionRepository::setQueuePositions(const QList<QPair<QString, int>>& positions) {
    Transaction tx(m_database, Durability::Normal);
    if (!tx.begun())
        return tx.error();
    QSqlQuery update = tx.prepare(QStringLiteral(
        "UPDATE executions SET queue_position = ? WHERE execution_id = ? AND state = 'queued'"));
    Error error;
    for (const auto& [id, position] : positions) {
        update.addBindValue(position);
        update.addBindValue(id);
        if (!execQuery(update, QStringLiteral("set queue position"), &error))
            return error;
    }
    return tx.commit();
}

std::optional<Error> ExecutionRepository::updateLogBytes(const QString& executionId,
                                                         const LogByteCounts& bytes) {
    Transaction tx(m_database, Durability::Normal);
    if (!tx.begun())
        return tx.error();
    QSqlQuery update = tx.prepare(QStringLiteral(
        "UPDATE executions SET stdout_bytes = ?, stderr_bytes = ?, log_dropped_bytes = ?"
        " WHERE execution_id = ? AND state = 'running'"));
    update.addBindValue(bytes.stdoutBytes);
    update.addBindValue(bytes.stderrBytes);
    update.addBindValue(bytes.droppedBytes);
    update.addBindValue(executionId);
    Error error;
    if (!execQuery(update, QStringLiteral("update log bytes"), &error))
        return error;
    return tx.commit();
}

std::optional<Error> ExecutionRepository::get(const QString& executionId,
                                              ExecutionRecord* out) const {
    Error error;
    if (selectById(m_database.connection(), executionId, out, &error))
        return std::nullopt;
    ExecutionRecord removed;
    if (error.kind == ErrorKind::NotFound &&
        selectTombstone(m_database.connection(), executionId, &removed, &error))
        return Error{ErrorKind::NotFound, QStringLiteral("execution_not_found"),
                     QStringLiteral("execution %1 was %2").arg(executionId, removed.statusReason)};
    return error;
}

std::optional<Error> ExecutionRepository::list(const ExecutionFilter& filter,
                                               ExecutionPage* out) const {
    if (filter.limit < 1 || filter.limit > kMaxPageSize)
        return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_filter"),
                     QStringLiteral("limit must be 1..%1").arg(kMaxPageSize)};
    QStringList where;
    QList<QVariant> values;
    if (!filter.workspaceId.isEmpty()) {
        where.append(QStringLiteral("workspace_id = ?"));
        values.append(filter.workspaceId);
    }
    if (!filter.states.isEmpty())
        where.append(QStringLiteral("state IN (%1)").arg(stateList(filter.states)));
    if (!filter.kinds.isEmpty()) {
        QStringList kinds;
        for (const ExecutionKind kind : filter.kinds)
            kinds.append(QLatin1Char('\'') + toString(kind) + QLatin1Char('\''));
        where.append(QStringLiteral("kind IN (%1)").arg(kinds.join(QLatin1Char(','))));
    }
    if (filter.createdFromMs) {
        where.append(QStringLiteral("created_ms >= ?"));
        values.append(*filter.createdFromMs);
    }
    if (filter.createdToMs) {
        where.append(QStringLiteral("created_ms < ?"));
        values.append(*filter.createdToMs);
    }
    if (!filter.cursor.isEmpty()) {
        qint64 createdMs = 0, seq = 0;
        if (!decodeCursor(filter.cursor, &createdMs, &seq))
            return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_cursor"),
                         QStringLiteral("the cursor is not one this agent issued")};
        where.append(QStringLiteral("(created_ms < ? OR (created_ms = ? AND seq < ?))"));
        values << createdMs << createdMs << seq;
    }
    QSqlQuery query(m_database.connection());
    query.prepare(QStringLiteral("SELECT %1 FROM executions %2 ORDER BY created_ms DESC, seq DESC"
                                 " LIMIT %3")
                      .arg(kColumns, where.isEmpty() ? QString()
                                                     : QStringLiteral("WHERE ") +
                                                           where.join(QStringLiteral(" AND ")))
                      .arg(filter.limit + 1));
    for (const QVariant& value : values)
        query.addBindValue(value);
    Error error;
    if (!execQuery(query, QStringLiteral("list executions"), &error))
        return error;
    ExecutionPage page;
    while (query.next()) {
        if (page.items.size() == filter.limit) {
            const ExecutionRecord& last = page.items.constLast();
            page.nextCursor = encodeCursor(last.createdMs, last.seq);
            break;
        }
        page.items.append(readRecord(query));
    }
    *out = page;
    return std::nullopt;
}

std::optional<Error>
ExecutionRepository::summarizeByWorkspace(QHash<QString, WorkspaceExecutionSummary>* out) const {
    QSqlQuery query(m_database.connection());
    query.prepare(QStringLiteral("SELECT workspace_id, COUNT(*), MAX(created_ms) FROM executions"
                                 " GROUP BY workspace_id"));
    Error error;
    if (!execQuery(query, QStringLiteral("summarize executions"), &error))
        return error;
    QHash<QString, WorkspaceExecutionSummary> summaries;
    while (query.next())
        summaries.insert(query.value(0).toString(),
                         {query.value(1).toLongLong(), query.value(2).toLongLong()});
    *out = summaries;
    return std::nullopt;
}

std::optional<Error> ExecutionRepository::markRunningAsLost(const QString& reason, qint64 nowMs,
                                                            QStringList* ids) {
    const qint64 now = nowOr(nowMs);
    Transaction tx(m_database, Durability::Acknowledged);
    if (!tx.begun())
        return tx.error();
    Error error;
    QSqlQuery select = tx.prepare(QStringLiteral(
        "SELECT execution_id FROM executions WHERE state IN ('running','queued') ORDER BY seq"));
    if (!execQuery(select, QStringLiteral("find unfinished executions"), &error))
        return error;
    QStringList changed;
    while (select.next())
        changed.append(select.value(0).toString());
    select.finish();
    const QList<QPair<QString, QString>> reasons{
        {QStringLiteral("running"), reason},
        {QStringLiteral("queued"), reason + QStringLiteral(" (it had not started)")}};
    for (const auto& [from, text] : reasons) {
        QSqlQuery update = tx.prepare(QStringLiteral(
            "UPDATE executions SET state = 'lost', status_reason = ?, finished_ms = ?,"
            " duration_ms = CASE WHEN started_ms IS NULL THEN NULL ELSE ? - started_ms END,"
            " queue_position = NULL WHERE state = ?"));
        update.addBindValue(sqlText(text));
        update.addBindValue(now);
        update.addBindValue(now);
        update.addBindValue(from);
        if (!execQuery(update, QStringLiteral("mark executions lost"), &error))
            return error;
    }
    if (const auto failed = tx.commit())
        return failed;
    if (ids)
        *ids = changed;
    return std::nullopt;
}

} // namespace runbox::store
