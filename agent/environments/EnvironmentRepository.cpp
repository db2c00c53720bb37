#include "agent/environments/EnvironmentRepository.h"

#include "agent/store/ExecutionRecord.h"
#include "agent/store/Transaction.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QSqlQuery>
#include <QVariant>

namespace runbox::environments {

namespace {

const QString kEnvColumns = QStringLiteral(
    "id, name, language, provisioner, current_revision_id, build_workspace_id, created_ms");
const QString kRevColumns =
    QStringLiteral("id, environment_id, seq, status, spec, prefix_path, execution_id, snapshot,"
                   " snapshot_sha256, status_reason, created_ms, finished_ms, prefix_removed_ms");

EnvironmentRow readEnvironment(const QSqlQuery& q) {
    EnvironmentRow r;
    r.id = q.value(0).toString();
    r.name = q.value(1).toString();
    r.language = q.value(2).toString();
    r.provisioner = q.value(3).toString();
    r.currentRevisionId = q.value(4).toString();
    r.buildWorkspaceId = q.value(5).toString();
    r.createdMs = q.value(6).toLongLong();
    return r;
}

RevisionRow readRevision(const QSqlQuery& q) {
    RevisionRow r;
    r.id = q.value(0).toString();
    r.environmentId = q.value(1).toString();
    r.seq = q.value(2).toInt();
    r.status = q.value(3).toString();
    r.spec = QJsonDocument::fromJson(q.value(4).toString().toUtf8()).object();
    r.prefixPath = q.value(5).toString();
    r.executionId = q.value(6).toString();
    r.snapshot = q.value(7).toString().toUtf8();
    r.snapshotSha256 = q.value(8).toString();
    r.statusReason = q.value(9).toString();
    r.createdMs = q.value(10).toLongLong();
    r.finishedMs = q.value(11).toLongLong();
    r.prefixRemovedMs = q.value(12).toLongLong();
    return r;
}

std::optional<Error> run(QSqlQuery& q, const QString& what) {
    Error error;
    if (!store::execQuery(q, what, &error))
        return error;
    return std::nullopt;
}

Error envNotFound(const QString& id) {
    return Error{ErrorKind::NotFound, QStringLiteral("environment_not_found"),
                 QStringLiteral("no environment %1").arg(id)};
}

} // namespace

QJsonObject RevisionRow::toJson() const {
    return {
        {"id", id},
        {"environmentId", environmentId},
        {"seq", seq},
        {"status", status},
        {"spec", spec},
        {"executionId", executionId},
        {"statusReason", statusReason},
        {"snapshotSha256", snapshotSha256.isEmpty() ? QJsonValue() : snapshotSha256},
        {"createdAt", store::isoTimestamp(createdMs)},
        {"finishedAt", finishedMs > 0 ? QJsonValue(store::isoTimestamp(finishedMs)) : QJsonValue()},
        {"prefixRemovedAt",
         prefixRemovedMs > 0 ? QJsonValue(store::isoTimestamp(prefixRemovedMs)) : QJsonValue()}};
}

std::optional<Error> EnvironmentRepository::insertEnvironment(const EnvironmentRow& row) {
    store::Transaction tx(m_database, store::Durability::Acknowledged);
    if (!tx.begun())
        return tx.error();
    QSqlQuery exists = tx.prepare(
        QStringLiteral("SELECT id FROM environments WHERE name = ? AND deleted_ms IS NULL"));
    exists.addBindValue(row.name);
    if (auto err = run(exists, QStringLiteral("find environment")))
        return err;
    if (exists.next())
        return Error{ErrorKind::Conflict, QStringLiteral("environment_exists"),
                     QStringLiteral("an environment named \"%1\" exists (%2)")
                         .arg(row.name, exists.value(0).toString())};
    QSqlQuery insert = tx.prepare(QStringLiteral("INSERT INTO environments (%1, deleted_ms)"
                                                 " VALUES (?, ?, ?, ?, NULL, ?, ?, NULL)")
                                      .arg(kEnvColumns));
    insert.addBindValue(row.id);
    insert.addBindValue(row.name);
    insert.addBindValue(row.language);
    insert.addBindValue(row.provisioner);
    insert.addBindValue(store::sqlText(row.buildWorkspaceId));
    insert.addBindValue(row.createdMs);
    if (auto err = run(insert, QStringLiteral("insert environment")))
        return err;
    return tx.commit();
}

std::optional<Error> EnvironmentRepository::setBuildWorkspace(const QString& environmentId,
                                                              const QString& workspaceId) {
    QSqlQuery q(m_database.connection());
    q.prepare(QStringLiteral("UPDATE environments SET build_workspace_id = ? WHERE id = ?"));
    q.addBindValue(workspaceId);
    q.addBindValue(environmentId);
    return run(q, QStringLiteral("set build workspace"));
}

std::optional<Error> EnvironmentRepository::listEnvironments(QList<EnvironmentRow>* out) const {
    QSqlQuery q(m_database.connection());
    q.prepare(QStringLiteral("SELECT %1 FROM environments WHERE deleted_ms IS NULL"
                             " ORDER BY created_ms, id")
                  .arg(kEnvColumns));
    if (auto err = run(q, QStringLiteral("list environments")))
        return err;
    out->clear();
    while (q.next())
        out->append(readEnvironment(q));
    return std::nullopt;
}

std::optional<Error> EnvironmentRepository::getEnvironment(const QString& id,
                                                           EnvironmentRow* out) const {
    QSqlQuery q(m_database.connection());
    q.prepare(QStringLiteral("SELECT %1 FROM environments WHERE id = ? AND deleted_ms IS NULL")
                  .arg(kEnvColumns));
    q.addBindValue(id);
    if (auto err = run(q, QStringLiteral("get environment")))
        return err;
    if (!q.next())
        return envNotFound(id);
    *out = readEnvironment(q);
    return std::nullopt;
}

std::optional<Error> EnvironmentRepository::markEnvironmentDeleted(const QString& id) {
    QSqlQuery q(m_database.connection());
    q.prepare(QStringLiteral(
        "UPDATE environments SET deleted_ms = ? WHERE id = ? AND deleted_ms IS NULL"));
    q.addBindValue(QDateTime::currentMSecsSinceEpoch());
    q.addBindValue(id);
    if (auto err = run(q, QStringLiteral("delete environment")))
        return err;
    return q.numRowsAffected() == 1 ? std::nullopt : std::optional<Error>(envNotFound(id));
}

std::optional<Error> EnvironmentRepository::insertRevision(RevisionRow* row) {
    store::Transaction tx(m_database, store::Durability::Acknowledged);
    if (!tx.begun())
        return tx.error();
    QSqlQuery seq = tx.prepare(QStringLiteral(
        "SELECT COALESCE(MAX(seq), 0) + 1 FROM environment_revisions WHERE environment_id = ?"));
    seq.addBindValue(row->environmentId);
    if (auto err = run(seq, QStringLiteral("next revision")))
        return err;
    row->seq = seq.next() ? seq.value(0).toInt() : 1;
    QSqlQuery insert =
        tx.prepare(QStringLiteral("INSERT INTO environment_revisions (%1)"
                                  " VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, '', ?, NULL, NULL)")
                       .arg(kRevColumns));
    insert.addBindValue(row->id);
    insert.addBindValue(row->environmentId);
    insert.addBindValue(row->seq);
    insert.addBindValue(row->status);
    insert.addBindValue(QString::fromUtf8(QJsonDocument(row->spec).toJson(QJsonDocument::Compact)));
    insert.addBindValue(row->prefixPath);
    insert.addBindValue(store::sqlText(row->executionId));
    insert.addBindValue(row->createdMs);
    if (auto err = run(insert, QStringLiteral("insert revision")))
        return err;
    return tx.commit();
}

std::optional<Error> EnvironmentRepository::setRevisionExecution(const QString& revisionId,
                                                                 const QString& executionId) {
    QSqlQuery q(m_database.connection());
    q.prepare(QStringLiteral("UPDATE environment_revisions SET execution_id = ? WHERE id = ?"));
    q.addBindValue(executionId);
    q.addBindValue(revisionId);
    return run(q, QStringLiteral("set revision execution"));
}

std::optional<Error> EnvironmentRepository::finishRevision(const QString& revisionId, bool ready,
                                                           const QByteArray& snapshot,
                                                           const QString& sha256,
                                                           const QString& reason) {
    store::Transaction tx(m_database, store::Durability::Acknowledged);
    if (!tx.begun())
        return tx.error();
    QSqlQuery q =
        tx.prepare(QStringLiteral("UPDATE environment_revisions SET status = ?, snapshot = ?,"
                                  " snapshot_sha256 = ?, status_reason = ?, finished_ms = ?"
                                  " WHERE id = ? AND status = 'building'"));
    q.addBindValue(ready ? QStringLiteral("ready") : QStringLiteral("failed"));
    q.addBindValue(ready ? QVariant(QString::fromUtf8(snapshot)) : QVariant());
    q.addBindValue(ready ? QVariant(sha256) : QVariant());
    q.addBindValue(store::sqlText(reason));
    q.addBindValue(QDateTime::currentMSecsSinceEpoch());
    q.addBindValue(revisionId);
    if (auto err = run(q, QStringLiteral("finish revision")))
        return err;
    if (q.numRowsAffected() != 1)
        return Error{ErrorKind::Conflict, QStringLiteral("revision_not_building"),
                     QStringLiteral("revision %1 is not building").arg(revisionId)};
    if (ready) {
        QSqlQuery move = tx.prepare(
            QStringLiteral("UPDATE environments SET current_revision_id = ? WHERE id ="
                           " (SELECT environment_id FROM environment_revisions WHERE id = ?)"));
        move.addBindValue(revisionId);
        move.addBindValue(revisionId);
        if (auto err = run(move, QStringLiteral("move current revision")))
            return err;
    }
    return tx.commit();
}

std::optional<Error> EnvironmentRepository::listRevisions(const QString& environmentId,
                                                          QList<RevisionRow>* out) const {
    QSqlQuery q(m_database.connection());
    q.prepare(QStringLiteral("SELECT %1 FROM environment_revisions WHERE environment_id = ?"
                             " ORDER BY seq")
                  .arg(kRevColumns));
    q.addBindValue(environmentId);
    if (auto err = run(q, QStringLiteral("list revisions")))
        return err;
    out->clear();
    while (q.next())
        out->append(readRevision(q));
    return std::nullopt;
}

std::optional<Error> EnvironmentRepository::getRevision(const QString& id, RevisionRow* out) const {
    QSqlQuery q(m_database.connection());
    q.prepare(QStringLiteral("SELECT %1 FROM environment_revisions WHERE id = ?").arg(kRevColumns));
    q.addBindValue(id);
    if (auto err = run(q, QStringLiteral("get revision")))
        return err;
    if (!q.next())
        return Error{ErrorKind::NotFound, QStringLiteral("environment_revision_not_found"),
                     QStringLiteral("no environment revision %1").arg(id)};
    *out = readRevision(q);
    return std::nullopt;
}

std::optional<Error> EnvironmentRepository::listSweepable(qint64 finishedBeforeMs,
                                                          QList<RevisionRow>* out) const {
    QSqlQuery q(m_database.connection());
    q.prepare(QStringLiteral("SELECT r.%1 FROM environment_revisions r JOIN environments e"
                             " ON e.id = r.environment_id WHERE r.status = 'ready'"
                             " AND r.prefix_removed_ms IS NULL AND r.finished_ms <= ?"
                             " AND e.deleted_ms IS NULL"
                             " AND (e.current_revision_id IS NULL OR e.current_revision_id <> r.id)"
                             " ORDER BY r.finished_ms")
                  .arg(QString(kRevColumns).replace(QStringLiteral(", "), QStringLiteral(", r."))));
    q.addBindValue(finishedBeforeMs);
    if (auto err = run(q, QStringLiteral("list sweepable revisions")))
        return err;
    out->clear();
    while (q.next())
        out->append(readRevision(q));
    return std::nullopt;
}

std::optional<Error> EnvironmentRepository::markPrefixRemoved(const QString& revisionId) {
    QSqlQuery q(m_database.connection());
    q.prepare(
        QStringLiteral("UPDATE environment_revisions SET prefix_removed_ms = ? WHERE id = ?"));
    q.addBindValue(QDateTime::currentMSecsSinceEpoch());
    q.addBindValue(revisionId);
    return run(q, QStringLiteral("mark prefix removed"));
}

std::optional<Error> EnvironmentRepository::failUnfinished(QList<RevisionRow>* out) {
    QSqlQuery q(m_database.connection());
    q.prepare(QStringLiteral("SELECT %1 FROM environment_revisions WHERE status = 'building'")
                  .arg(kRevColumns));
    if (auto err = run(q, QStringLiteral("find unfinished revisions")))
        return err;
    out->clear();
    while (q.next())
        out->append(readRevision(q));
    q.finish();
    for (const RevisionRow& r : std::as_const(*out))
        if (auto err = finishRevision(r.id, false, {}, {},
                                      QStringLiteral("the agent stopped during the build")))
            return err;
    return std::nullopt;
}

} // namespace runbox::environments
