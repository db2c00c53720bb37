#include "agent/store/Migrations.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace runbox::store::migrations {

namespace {

/// The indexes and triggers of the executions table as of schema 5, made again after each
/// rebuild of the table (a rebuilt table loses them). Frozen: a change is a new migration.
QStringList executionsIndexesAndTriggers() {
    return {
        QStringLiteral("CREATE INDEX executions_by_created ON executions(created_ms, seq)"),
        QStringLiteral("CREATE INDEX executions_by_workspace ON executions(workspace_id, "
                       "created_ms, seq)"),
        QStringLiteral("CREATE INDEX executions_by_state ON executions(state, created_ms, seq)"),
        QStringLiteral("CREATE INDEX executions_by_kind ON executions(kind, created_ms, seq)"),
        QStringLiteral("CREATE TRIGGER executions_kept_forever BEFORE DELETE ON executions"
                       " BEGIN SELECT RAISE(ABORT, 'execution records are kept forever');"
                       " END"),
        QStringLiteral("CREATE TRIGGER executions_id_immutable BEFORE UPDATE OF execution_id"
                       " ON executions WHEN NEW.execution_id IS NOT OLD.execution_id"
                       " BEGIN SELECT RAISE(ABORT, 'an execution id never changes'); END"),
    };
}

/// The executions table as of schema 6 (memory_exceeded; the usage columns), created as @p name,
/// with the kinds of @p kinds (SQL list of quoted names): schema 7 adds 'provision'.
QString executionsTableV6(const QString& name,
                          const QString& kinds = QStringLiteral("'shell','python','r','argv',"
                                                                "'broker'")) {
    return QStringLiteral(
               "CREATE TABLE %1 ("
               " seq INTEGER PRIMARY KEY AUTOINCREMENT,"
               " execution_id TEXT NOT NULL UNIQUE,"
               " client_supplied INTEGER NOT NULL DEFAULT 0,"
               " workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE RESTRICT,"
               " kind TEXT NOT NULL CHECK (kind IN (%2)),"
               " state TEXT NOT NULL CHECK (state IN ('queued','running','completed','failed',"
               "  'timed_out','cancelled','output_limited','quota_exceeded','memory_exceeded',"
               "  'setup_failed','lost')),"
               " queue_position INTEGER, created_ms INTEGER NOT NULL, started_ms INTEGER,"
               " finished_ms INTEGER, exit_code INTEGER, signal INTEGER, duration_ms INTEGER,"
               " status_reason TEXT NOT NULL DEFAULT '',"
               " permission_epoch TEXT NOT NULL DEFAULT '{}',"
               " provenance TEXT NOT NULL DEFAULT '{}',"
               " created_files TEXT NOT NULL DEFAULT '[]',"
               " modified_files TEXT NOT NULL DEFAULT '[]',"
               " deleted_files TEXT NOT NULL DEFAULT '[]',"
               " stdout_bytes INTEGER NOT NULL DEFAULT 0, stderr_bytes INTEGER NOT NULL DEFAULT 0,"
               " log_dropped_bytes INTEGER NOT NULL DEFAULT 0,"
               " peak_memory_bytes INTEGER, cpu_user_ms INTEGER, cpu_system_ms INTEGER,"
               " peak_processes INTEGER)")
        .arg(name, kinds);
}

QList<Migration> buildMigrations() {
    QList<Migration> list;
    list.append(Migration{
        1,
        QStringLiteral("tables: workspaces, executions, settings, audit"),
        {
            // Workspaces. There is deliberately no env column: a workspace's env lives only in
            // memory (docs/light-workspaces.md: never on disk, never in the database, never in a
            // log). Rows are soft-deleted (deleted_ms) because executions keep pointing at them.
            QStringLiteral("CREATE TABLE workspaces ("
                           " id TEXT PRIMARY KEY NOT NULL,"
                           " isolation TEXT NOT NULL CHECK (isolation IN ('strong','light')),"
                           " created_ms INTEGER NOT NULL,"
                           " root_path TEXT NOT NULL,"
                           " owner_token_id TEXT NOT NULL DEFAULT '',"
                           " token_nonce TEXT NOT NULL DEFAULT '',"
                           " uid INTEGER,"
                           " deleted_ms INTEGER)"),
            // Executions. seq orders inserts (AUTOINCREMENT: never reused); execution_id is the
            // API id, client-chosen (idempotency key) or generated, unique forever.
            QStringLiteral(
                "CREATE TABLE executions ("
                " seq INTEGER PRIMARY KEY AUTOINCREMENT,"
                " execution_id TEXT NOT NULL UNIQUE,"
                " client_supplied INTEGER NOT NULL DEFAULT 0,"
                " workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE RESTRICT,"
                " kind TEXT NOT NULL CHECK (kind IN ('shell','python','r','argv')),"
                " state TEXT NOT NULL CHECK (state IN ('queued','running','completed','failed',"
                "  'timed_out','cancelled','output_limited','quota_exceeded','setup_failed',"
                "  'lost')),"
                " queue_position INTEGER,"
                " created_ms INTEGER NOT NULL,"
                " started_ms INTEGER,"
                " finished_ms INTEGER,"
                " exit_code INTEGER,"
                " signal INTEGER,"
                " duration_ms INTEGER,"
                " status_reason TEXT NOT NULL DEFAULT '',"
                " permission_epoch TEXT NOT NULL DEFAULT '{}',"
                " provenance TEXT NOT NULL DEFAULT '{}',"
                " created_files TEXT NOT NULL DEFAULT '[]',"
                " modified_files TEXT NOT NULL DEFAULT '[]',"
                " deleted_files TEXT NOT NULL DEFAULT '[]',"
                " stdout_bytes INTEGER NOT NULL DEFAULT 0,"
                " stderr_bytes INTEGER NOT NULL DEFAULT 0,"
                " log_dropped_bytes INTEGER NOT NULL DEFAULT 0)"),
            QStringLiteral("CREATE TABLE settings ("
                           " key TEXT PRIMARY KEY NOT NULL,"
                           " value TEXT NOT NULL,"
                           " updated_ms INTEGER NOT NULL)"),
            QStringLiteral("CREATE TABLE audit ("
                           " id INTEGER PRIMARY KEY AUTOINCREMENT,"
                           " at_ms INTEGER NOT NULL,"
                           " token_id TEXT NOT NULL,"
                           " key TEXT NOT NULL,"
                           " before_json TEXT,"
                           " after_json TEXT)"),
        },
    });
    list.append(Migration{
        2,
        QStringLiteral("listing indexes; execution ids can never be deleted or changed"),
        {
            QStringLiteral("CREATE INDEX executions_by_created ON executions(created_ms, seq)"),
            QStringLiteral("CREATE INDEX executions_by_workspace ON executions(workspace_id, "
                           "created_ms, seq)"),
            QStringLiteral(
                "CREATE INDEX executions_by_state ON executions(state, created_ms, seq)"),
            QStringLiteral("CREATE INDEX audit_by_key ON audit(key, id)"),
            // The idempotency key is kept forever (docs/contracts.md "Exec request"): enforce it in
            // the schema itself.
            QStringLiteral("CREATE TRIGGER executions_kept_forever BEFORE DELETE ON executions"
                           " BEGIN SELECT RAISE(ABORT, 'execution records are kept forever');"
                           " END"),
            QStringLiteral("CREATE TRIGGER executions_id_immutable BEFORE UPDATE OF execution_id"
                           " ON executions WHEN NEW.execution_id IS NOT OLD.execution_id"
                           " BEGIN SELECT RAISE(ABORT, 'an execution id never changes'); END"),
        },
    });
    list.append(Migration{
        3,
        QStringLiteral("egress decisions (append-only)"),
        {
            // One row per proxied connection of an execution's egress gateway
            // (agent/egress/README.md). Sync executions have no executions row, so there is no
            // foreign key; workspace_id says who may read the rows of an execution that has none.
            QStringLiteral("CREATE TABLE egress_decisions ("
                           " id INTEGER PRIMARY KEY AUTOINCREMENT,"
                           " execution_id TEXT NOT NULL,"
                           " workspace_id TEXT NOT NULL DEFAULT '',"
                           " at_ms INTEGER NOT NULL,"
                           " host TEXT NOT NULL,"
                           " port INTEGER NOT NULL,"
                           " allowed INTEGER NOT NULL CHECK (allowed IN (0, 1)),"
                           " reason TEXT NOT NULL,"
                           " message TEXT NOT NULL DEFAULT '',"
                           " bytes_up INTEGER NOT NULL DEFAULT 0,"
                           " bytes_down INTEGER NOT NULL DEFAULT 0)"),
            QStringLiteral("CREATE INDEX egress_decisions_by_execution ON "
                           "egress_decisions(execution_id, id)"),
            QStringLiteral("CREATE TRIGGER egress_decisions_append_only_update BEFORE UPDATE ON "
                           "egress_decisions BEGIN SELECT RAISE(ABORT, 'egress decisions are "
                           "append-only'); END"),
            QStringLiteral("CREATE TRIGGER egress_decisions_append_only_delete BEFORE DELETE ON "
                           "egress_decisions BEGIN SELECT RAISE(ABORT, 'egress decisions are "
                           "append-only'); END"),
        },
    });
    list.append(Migration{
        4,
        QStringLiteral("egress decisions by workspace"),
        {
            // Light workspaces' connections are recorded per workspace (execution_id ''), and
            // GET /v1/workspaces/{id}/egress reads every decision of a workspace.
            QStringLiteral("CREATE INDEX egress_decisions_by_workspace ON "
                           "egress_decisions(workspace_id, id)"),
        },
    });
    list.append(Migration{
        5,
        QStringLiteral("broker jobs are executions (kind 'broker'); execution outputs"),
        QStringList{
            // SQLite cannot change a CHECK constraint in place: the table is rebuilt
            // (https://sqlite.org/lang_altertable.html#otheralter) with the same columns in the
            // same order, every row copied with its seq, then its indexes and triggers made again.
            // DROP TABLE removes the table's triggers before its implied DELETE, so the
            // kept-forever trigger does not fire; no table references executions by key.
            QStringLiteral(
                "CREATE TABLE executions_v5 ("
                " seq INTEGER PRIMARY KEY AUTOINCREMENT,"
                " execution_id TEXT NOT NULL UNIQUE,"
                " client_supplied INTEGER NOT NULL DEFAULT 0,"
                " workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE RESTRICT,"
                " kind TEXT NOT NULL CHECK (kind IN ('shell','python','r','argv','broker')),"
                " state TEXT NOT NULL CHECK (state IN ('queued','running','completed','failed',"
                "  'timed_out','cancelled','output_limited','quota_exceeded','setup_failed',"
                "  'lost')),"
                " queue_position INTEGER,"
                " created_ms INTEGER NOT NULL,"
                " started_ms INTEGER,"
                " finished_ms INTEGER,"
                " exit_code INTEGER,"
                " signal INTEGER,"
                " duration_ms INTEGER,"
                " status_reason TEXT NOT NULL DEFAULT '',"
                " permission_epoch TEXT NOT NULL DEFAULT '{}',"
                " provenance TEXT NOT NULL DEFAULT '{}',"
                " created_files TEXT NOT NULL DEFAULT '[]',"
                " modified_files TEXT NOT NULL DEFAULT '[]',"
                " deleted_files TEXT NOT NULL DEFAULT '[]',"
                " stdout_bytes INTEGER NOT NULL DEFAULT 0,"
                " stderr_bytes INTEGER NOT NULL DEFAULT 0,"
                " log_dropped_bytes INTEGER NOT NULL DEFAULT 0)"),
            QStringLiteral("INSERT INTO executions_v5 SELECT * FROM executions ORDER BY seq"),
            QStringLiteral("DROP TABLE executions"),
            QStringLiteral("ALTER TABLE executions_v5 RENAME TO executions"),
        } + executionsIndexesAndTriggers() +
            QStringList{
                // The files a broker job left in its workspace, hashed when it ended (the result
                // route, docs/npu.md "Host broker"). Written once with the terminal state.
                QStringLiteral("CREATE TABLE execution_outputs ("
                               " execution_id TEXT NOT NULL,"
                               " path TEXT NOT NULL,"
                               " size_bytes INTEGER NOT NULL,"
                               " sha256 TEXT NOT NULL,"
                               " PRIMARY KEY (execution_id, path))"),
            },
    });
    list.append(Migration{
        6,
        QStringLiteral("resource bounds: state memory_exceeded; per-execution usage"),
        QStringList{
            // The same rebuild as schema 5: every row kept with its seq, usage unknown (NULL).
            executionsTableV6(QStringLiteral("executions_v6")),
            QStringLiteral("INSERT INTO executions_v6 SELECT *, NULL, NULL, NULL, NULL"
                           " FROM executions ORDER BY seq"),
            QStringLiteral("DROP TABLE executions"),
            QStringLiteral("ALTER TABLE executions_v6 RENAME TO executions"),
        } + executionsIndexesAndTriggers(),
    });
    list.append(Migration{
        7,
        QStringLiteral("science environments and their revisions; execution kind 'provision'"),
        QStringList{
            // The same rebuild as schema 6, with the kind of an environment's builds.
            executionsTableV6(QStringLiteral("executions_v7"),
                              QStringLiteral("'shell','python','r','argv','broker','provision'")),
            QStringLiteral("INSERT INTO executions_v7 SELECT * FROM executions ORDER BY seq"),
            QStringLiteral("DROP TABLE executions"),
            QStringLiteral("ALTER TABLE executions_v7 RENAME TO executions"),
        } + executionsIndexesAndTriggers() +
            QStringList{
                // docs/environments.md "Model": a name is unique among live environments; rows
                // stay after a delete (deleted_ms) so the executions' epochs keep meaning.
                QStringLiteral("CREATE TABLE environments ("
                               " id TEXT PRIMARY KEY,"
                               " name TEXT NOT NULL,"
                               " language TEXT NOT NULL CHECK (language IN ('python','r')),"
                               " provisioner TEXT NOT NULL,"
                               " current_revision_id TEXT,"
                               " build_workspace_id TEXT NOT NULL DEFAULT '',"
                               " created_ms INTEGER NOT NULL,"
                               " deleted_ms INTEGER)"),
                QStringLiteral("CREATE UNIQUE INDEX environments_live_name ON environments(name)"
                               " WHERE deleted_ms IS NULL"),
                // A revision is immutable once ready: its spec is written at creation, its
                // snapshot and the snapshot's SHA-256 once, when its build is verified. Its
                // prefix may be removed later (prefix_removed_ms); the row stays.
                QStringLiteral(
                    "CREATE TABLE environment_revisions ("
                    " id TEXT PRIMARY KEY,"
                    " environment_id TEXT NOT NULL REFERENCES environments(id),"
                    " seq INTEGER NOT NULL,"
                    " status TEXT NOT NULL CHECK (status IN ('building','ready','failed')),"
                    " spec TEXT NOT NULL DEFAULT '{}',"
                    " prefix_path TEXT NOT NULL,"
                    " execution_id TEXT NOT NULL DEFAULT '',"
                    " snapshot TEXT,"
                    " snapshot_sha256 TEXT,"
                    " status_reason TEXT NOT NULL DEFAULT '',"
                    " created_ms INTEGER NOT NULL,"
                    " finished_ms INTEGER,"
                    " prefix_removed_ms INTEGER,"
                    " UNIQUE (environment_id, seq))"),
            },
    });
    list.append(Migration{
        8,
        QStringLiteral("retention: finished executions may be removed, their ids kept forever"),
        {
            // The id of every execution removed by retention (store::ExecutionRetention), so a
            // managed executionId stays an idempotency key kept forever (docs/contracts.md "Exec
            // request"). logs_removed: 0 until its log files are deleted after the commit (a
            // start-up after a crash in between finishes the job).
            QStringLiteral("CREATE TABLE execution_tombstones ("
                           " execution_id TEXT PRIMARY KEY NOT NULL,"
                           " workspace_id TEXT NOT NULL,"
                           " kind TEXT NOT NULL,"
                           " created_ms INTEGER NOT NULL,"
                           " finished_ms INTEGER,"
                           " removed_ms INTEGER NOT NULL,"
                           " reason TEXT NOT NULL CHECK (reason IN ('age','size')),"
                           " logs_removed INTEGER NOT NULL DEFAULT 0)"),
            QStringLiteral("CREATE INDEX execution_tombstones_pending ON "
                           "execution_tombstones(execution_id) WHERE logs_removed = 0"),
            QStringLiteral("CREATE TRIGGER execution_tombstones_kept_forever BEFORE DELETE ON"
                           " execution_tombstones BEGIN SELECT RAISE(ABORT, 'removed execution"
                           " ids are kept forever'); END"),
            QStringLiteral("CREATE TRIGGER execution_tombstones_id_immutable BEFORE UPDATE OF"
                           " execution_id ON execution_tombstones WHEN NEW.execution_id IS NOT"
                           " OLD.execution_id BEGIN SELECT RAISE(ABORT, 'an execution id never"
                           " changes'); END"),
            // A record may go only once it is final and its id is in execution_tombstones (in
            // the same transaction). A later rebuild of the executions table must make this
            // trigger again, not the frozen kept-forever one of executionsIndexesAndTriggers().
            QStringLiteral("DROP TRIGGER executions_kept_forever"),
            QStringLiteral("CREATE TRIGGER executions_removed_only_with_tombstone BEFORE DELETE"
                           " ON executions WHEN OLD.state IN ('queued','running') OR NOT EXISTS"
                           " (SELECT 1 FROM execution_tombstones WHERE execution_id ="
                           " OLD.execution_id) BEGIN SELECT RAISE(ABORT, 'only a finished"
                           " execution whose id is in execution_tombstones may be removed');"
                           " END"),
            // Retention removes the oldest finished first.
            QStringLiteral("CREATE INDEX executions_by_finished ON executions(finished_ms, seq)"),
        },
    });
    return list;
}

bool exec(QSqlDatabase& db, const QString& sql, QString* error) {
    QSqlQuery query(db);
    if (query.exec(sql))
        return true;
    *error = query.lastError().text();
    return false;
}

} // namespace

const QList<Migration>& all() {
    static const QList<Migration> list = buildMigrations();
    return list;
}

int latestVersion() {
    return all().constLast().version;
}

int userVersion(QSqlDatabase& db) {
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("PRAGMA user_version")) || !query.next())
        return -1;
    return query.value(0).toInt();
}

bool migrate(QSqlDatabase& db, int targetVersion, int* reachedVersion, QString* error) {
    int version = userVersion(db);
    if (version < 0) {
        *error = QStringLiteral("cannot read the schema version: %1").arg(db.lastError().text());
        return false;
    }
    if (version > latestVersion()) {
        *error = QStringLiteral("%1 has schema version %2, written by a newer Runbox (this one "
                                "knows up to %3); refusing to open it")
                     .arg(db.databaseName())
                     .arg(version)
                     .arg(latestVersion());
        return false;
    }
    if (version == 0) {
        QSqlQuery query(db);
        if (!query.exec(QStringLiteral("SELECT count(*) FROM sqlite_master")) || !query.next()) {
            *error = query.lastError().text();
            return false;
        }
        if (query.value(0).toInt() > 0) {
            *error = QStringLiteral("%1 holds tables but no Runbox schema version; not a Runbox "
                                    "database")
                         .arg(db.databaseName());
            return false;
        }
    }
    for (const Migration& migration : all()) {
        if (migration.version <= version)
            continue;
        if (migration.version > targetVersion)
            break;
        QString stepError;
        bool ok = exec(db, QStringLiteral("BEGIN IMMEDIATE"), &stepError);
        for (qsizetype i = 0; ok && i < migration.statements.size(); ++i)
            ok = exec(db, migration.statements.at(i), &stepError);
        ok = ok && exec(db, QStringLiteral("PRAGMA user_version = %1").arg(migration.version),
                        &stepError);
        ok = ok && exec(db, QStringLiteral("COMMIT"), &stepError);
        if (!ok) {
            QString ignored;
            exec(db, QStringLiteral("ROLLBACK"), &ignored);
            *error = QStringLiteral("schema migration %1 (%2) failed: %3")
                         .arg(migration.version)
                         .arg(migration.description, stepError);
            return false;
        }
        version = migration.version;
    }
    *reachedVersion = version;
    return true;
}

} // namespace runbox::store::migrations
