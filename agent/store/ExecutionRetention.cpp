#include "agent/store/ExecutionRetention.h"

#include "agent/store/ExecutionRecord.h"
#include "agent/store/LogStore.h"
#include "agent/store/Transaction.h"

#include <QDateTime>
#include <QSqlQuery>

#include <algorithm>

namespace runbox::store {

namespace {

constexpr qint64 kDayMs = qint64(86400) * 1000;
const QString kFinished = QStringLiteral("state NOT IN ('queued','running')");

QJsonValue isoOrNull(const std::optional<qint64>& ms) {
    return ms ? QJsonValue(isoTimestamp(*ms)) : QJsonValue(QJsonValue::Null);
}

} // namespace

struct ExecutionRetention::Candidate {
    QString id;
    QString workspaceId;
    QString kind;
    qint64 createdMs = 0;
    std::optional<qint64> finishedMs;
    qint64 bytes = 0; ///< its log files
};

ExecutionRetention::ExecutionRetention(const Database& database, LogStore* logs,
                                       RetentionPolicy policy, Clock clock, QObject* parent)
    : QObject(parent), m_database(database), m_logs(logs), m_policy(policy),
      m_clock(clock ? std::move(clock)
                    : Clock([] { return QDateTime::currentMSecsSinceEpoch(); })) {
    connect(&m_timer, &QTimer::timeout, this, [this] {
        if (const auto error = runNow())
            qWarning("warning: retention: %s", qPrintable(error->message));
    });
}

ExecutionRetention::~ExecutionRetention() = default;

std::optional<Error> ExecutionRetention::initialize() {
    Error error;
    QSqlQuery pending(m_database.connection());
    pending.prepare(
        QStringLiteral("SELECT execution_id FROM execution_tombstones WHERE logs_removed = 0"));
    if (!execQuery(pending, QStringLiteral("read pending removals"), &error))
        return error;
    QStringList ids;
    while (pending.next())
        ids.append(pending.value(0).toString());
    pending.finish();
    if (!ids.isEmpty()) {
        m_logs->remove(ids);
        markLogsRemoved(ids);
    }
    // Only logs with a record count: retention could never free the others, and counting them
    // would make the size bound remove every finished execution.
    QHash<QString, qint64> logBytes = m_logs->diskBytesByLog();
    QSqlQuery records(m_database.connection());
    records.prepare(QStringLiteral("SELECT execution_id, %1 FROM executions").arg(kFinished));
    if (!execQuery(records, QStringLiteral("read executions"), &error))
        return error;
    m_bytes = 0;
    m_executions = 0;
    while (records.next()) {
        const qint64 bytes = logBytes.take(records.value(0).toString());
        if (!records.value(1).toBool())
            continue; // not final: its log counts when it finishes (noteLogFinished())
        m_bytes += bytes;
        ++m_executions;
    }
    qint64 strayBytes = 0;
    for (const qint64 bytes : std::as_const(logBytes))
        strayBytes += bytes;
    if (!logBytes.isEmpty())
        qWarning(
            "warning: retention: %lld log(s) without an execution record (%lld bytes) in %s: not "
            "counted, not removed",
            qlonglong(logBytes.size()), qlonglong(strayBytes), qPrintable(m_logs->logsDir()));
    return std::nullopt;
}

void ExecutionRetention::start(int intervalMs) {
    connect(m_logs, &LogStore::finished, this, &ExecutionRetention::noteLogFinished,
            Qt::UniqueConnection);
    if (const auto error = runNow())
        qWarning("warning: retention: %s", qPrintable(error->message));
    m_timer.start(intervalMs);
}

void ExecutionRetention::noteLogFinished(const QString& executionId) {
    LogInfo info;
    if (!m_logs->info(executionId, &info))
        m_bytes += info.fileBytes;
    ++m_executions;
    if (m_policy.maxBytes > 0 && m_bytes > m_policy.maxBytes)
        scheduleSizePass();
}

void ExecutionRetention::scheduleSizePass() {
    if (m_sizePassScheduled)
        return;
    m_sizePassScheduled = true;
    // The next turn of the event loop: the execution's record is final by then (its log is
    // finished before its record, docs/STORE.md "Durability").
    QTimer::singleShot(0, this, [this] {
        m_sizePassScheduled = false;
        if (const auto error = runNow())
            qWarning("warning: retention: %s", qPrintable(error->message));
    });
}

std::optional<Error> ExecutionRetention::runNow(Result* result) {
    Result local;
    Result* r = result ? result : &local;
    const qint64 nowMs = m_clock();
    Error error;
    if (m_policy.retentionDays > 0) {
        const qint64 cutoffMs = nowMs - m_policy.retentionDays * kDayMs;
        for (;;) {
            QList<Candidate> batch;
            if (!oldestFinished(cutoffMs, &batch, &error))
                return error;
            if (batch.isEmpty())
                break;
            if (auto failed = removePass(batch, QStringLiteral("age"), nowMs, r))
                return failed;
        }
    }
    while (m_policy.maxBytes > 0 && m_bytes > m_policy.maxBytes) {
        QList<Candidate> candidates;
        if (!oldestFinished(std::nullopt, &candidates, &error))
            return error;
        if (candidates.isEmpty())
            break; // what is left is running, or not an execution's
        QList<Candidate> batch;
        qint64 projected = m_bytes;
        for (const Candidate& c : candidates) {
            batch.append(c);
            projected -= c.bytes;
            if (projected <= m_policy.maxBytes)
                break;
        }
        if (auto failed = removePass(batch, QStringLiteral("size"), nowMs, r))
            return failed;
    }
    return std::nullopt;
}

bool ExecutionRetention::oldestFinished(std::optional<qint64> finishedBeforeMs,
                                        QList<Candidate>* out, Error* error) const {
    QSqlQuery query(m_database.connection());
    query.prepare(
        QStringLiteral("SELECT execution_id, workspace_id, kind, created_ms, finished_ms"
                       " FROM executions WHERE %1%2 ORDER BY finished_ms, seq LIMIT %3")
            .arg(kFinished, finishedBeforeMs ? QStringLiteral(" AND finished_ms < ?") : QString())
            .arg(kBatch));
    if (finishedBeforeMs)
        query.addBindValue(*finishedBeforeMs);
    if (!execQuery(query, QStringLiteral("read finished executions"), error))
        return false;
    QStringList ids;
    while (query.next()) {
        Candidate c;
        c.id = query.value(0).toString();
        c.workspaceId = query.value(1).toString();
        c.kind = query.value(2).toString();
        c.createdMs = query.value(3).toLongLong();
        if (!query.value(4).isNull())
            c.finishedMs = query.value(4).toLongLong();
        ids.append(c.id);
        out->append(c);
    }
    const QHash<QString, qint64> bytes = m_logs->diskBytes(ids);
    for (Candidate& c : *out)
        c.bytes = bytes.value(c.id);
    return true;
}

std::optional<Error> ExecutionRetention::removePass(const QList<Candidate>& batch,
                                                    const QString& reason, qint64 nowMs,
                                                    Result* result) {
    Transaction tx(m_database, Durability::Acknowledged);
    if (!tx.begun())
        return tx.error();
    QSqlQuery tombstone = tx.prepare(QStringLiteral(
        "INSERT INTO execution_tombstones (execution_id, workspace_id, kind, created_ms,"
        " finished_ms, removed_ms, reason) VALUES (?, ?, ?, ?, ?, ?, ?)"));
    QSqlQuery outputs =
        tx.prepare(QStringLiteral("DELETE FROM execution_outputs WHERE execution_id = ?"));
    QSqlQuery record = tx.prepare(
        QStringLiteral("DELETE FROM executions WHERE execution_id = ? AND %1").arg(kFinished));
    Error error;
    qint64 freed = 0;
    QStringList ids;
    for (const Candidate& c : batch) {
        tombstone.addBindValue(c.id);
        tombstone.addBindValue(c.workspaceId);
        tombstone.addBindValue(c.kind);
        tombstone.addBindValue(c.createdMs);
        tombstone.addBindValue(c.finishedMs ? QVariant(*c.finishedMs) : QVariant());
        tombstone.addBindValue(nowMs);
        tombstone.addBindValue(reason);
        outputs.addBindValue(c.id);
        record.addBindValue(c.id);
        if (!execQuery(tombstone, QStringLiteral("write tombstone"), &error) ||
            !execQuery(outputs, QStringLiteral("remove execution outputs"), &error) ||
            !execQuery(record, QStringLiteral("remove execution"), &error))
            return error;
        if (record.numRowsAffected() != 1) // not final (or gone): nothing of the pass is kept
            return Error{ErrorKind::Internal, QStringLiteral("store_error"),
                         QStringLiteral("retention: execution %1 is not a finished one; "
                                        "nothing removed")
                             .arg(c.id)};
        freed += c.bytes;
        ids.append(c.id);
    }
    const qint64 executionsAfter = std::max<qint64>(0, m_executions - batch.size());
    const qint64 bytesAfter = std::max<qint64>(0, m_bytes - freed);
    AuditEntry entry;
    entry.atMs = nowMs;
    entry.tokenId = QLatin1String(kAuditTokenId);
    entry.key = QLatin1String(kAuditKey);
    entry.before = QJsonObject{{"executions", m_executions}, {"bytes", m_bytes}};
    entry.after = QJsonObject{{"executions", executionsAfter},
                              {"bytes", bytesAfter},
                              {"removed", batch.size()},
                              {"bytesFreed", freed},
                              {"reason", reason},
                              {"retentionDays", m_policy.retentionDays},
                              {"maxBytes", m_policy.maxBytes},
                              {"oldestFinishedAt", isoOrNull(batch.constFirst().finishedMs)},
                              {"newestFinishedAt", isoOrNull(batch.constLast().finishedMs)}};
    if (!writeAuditRow(tx, &entry, &error))
        return error;
    if (auto failed = tx.commit())
        return failed;
    // Committed: the records are gone and their ids kept. Now their files.
    QStringList skipped;
    const qint64 deleted = m_logs->remove(ids, &skipped);
    for (const QString& id : std::as_const(skipped))
        ids.removeAll(id); // being written (cannot be, for a finished record): left pending
    markLogsRemoved(ids);
    m_bytes = std::max<qint64>(0, m_bytes - deleted);
    m_executions = executionsAfter;
    (reason == QLatin1String("age") ? result->removedForAge : result->removedForSize) +=
        int(batch.size());
    result->bytesFreed += deleted;
    result->audit.append(entry);
    return std::nullopt;
}

void ExecutionRetention::markLogsRemoved(const QStringList& ids) {
    Transaction tx(m_database, Durability::Normal);
    if (!tx.begun())
        return; // left pending: initialize() deletes them (again) at the next start
    QSqlQuery update = tx.prepare(
        QStringLiteral("UPDATE execution_tombstones SET logs_removed = 1 WHERE execution_id = ?"));
    Error error;
    for (const QString& id : ids) {
        update.addBindValue(id);
        if (!execQuery(update, QStringLiteral("mark logs removed"), &error))
            return;
    }
    tx.commit();
}

QJsonObject ExecutionRetention::healthJson() const {
    return {{"bytes", m_bytes},
            {"executions", m_executions},
            {"retentionDays", m_policy.retentionDays},
            {"maxBytes", m_policy.maxBytes}};
}

} // namespace runbox::store
