#pragma once

#include <QSqlDatabase>
#include <QString>
#include <QStringList>

/// The schema of runbox.db as an ordered list of migrations, numbered from 1. The version a file
/// is at is its `PRAGMA user_version` (https://sqlite.org/pragma.html#pragma_user_version):
/// 0 is an empty file. Each migration runs in its own transaction together with the bump of
/// user_version, so a crash leaves the file at the previous or the next version, never between.
/// Migrations are append-only: never edit a released one, add the next.
namespace runbox::store::migrations {

/// One step from `version - 1` to `version`.
struct Migration {
    int version = 0;
    QString description;
    QStringList statements; ///< one SQL statement each (QSQLITE runs only the first of a string)
};

/// Every migration, in order.
const QList<Migration>& all();

/// The version this build writes and reads.
int latestVersion();

/// Brings @p db from its current user_version up to @p targetVersion (tests pass a lower one to
/// build an old file). Refuses a file whose version is above latestVersion() (written by a newer
/// Runbox: never downgraded) and a version-0 file that already holds tables (not a Runbox
/// database). On success *reachedVersion is the file's version.
bool migrate(QSqlDatabase& db, int targetVersion, int* reachedVersion, QString* error);

/// PRAGMA user_version of @p db, or -1 when it cannot be read.
int userVersion(QSqlDatabase& db);

} // namespace runbox::store::migrations
