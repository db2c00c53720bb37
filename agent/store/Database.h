#pragma once

#include <QHash>
#include <QMutex>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>

#include <memory>

namespace runbox::store {

/// How hard a commit must reach the disk before it returns.
///
/// The database runs in WAL mode (https://sqlite.org/wal.html). With `synchronous=NORMAL` a
/// commit has been write()n to the WAL before it returns, so it survives SIGKILL of the agent
/// (the data is in the kernel's page cache), but the last commits may roll back on power loss or
/// a kernel crash. With `synchronous=FULL` the WAL is fsync()ed at each commit, which also covers
/// power loss (https://sqlite.org/pragma.html#pragma_synchronous).
enum class Durability {
    /// synchronous=NORMAL: survives SIGKILL of the agent. For intermediate states (queue
    /// positions, `running`, byte counters) that are re-derived or marked `lost` after a crash.
    Normal,
    /// synchronous=FULL for this one commit: survives power loss too. For what a client is told
    /// is final: an execution's creation (202), its terminal state (exit event) and settings
    /// changes with their audit rows. One fsync of the WAL per such commit.
    Acknowledged,
};

/// The agent's SQLite database `<stateDir>/runbox.db` (Qt Sql, driver QSQLITE).
///
/// Open it once with open(); it applies the ordered schema migrations (`PRAGMA user_version`,
/// see Migrations.h). Qt Sql connections belong to the thread that created them, so connection()
/// hands each thread its own connection, opened on first use under a unique name
/// (`runbox-store-<instance>-<thread>`) and removed when that QThread finishes or when the
/// Database is destroyed. Every connection runs with `journal_mode=WAL`, `foreign_keys=ON`,
/// `synchronous=NORMAL` (or FULL with Options::fullSyncEveryCommit) and a busy timeout, so
/// writers on different threads wait for each other instead of failing.
///
/// Thread-safe. Destroy it only after every thread that used it has stopped using it.
class Database final {
public:
    struct Options {
        /// Every commit fsyncs the WAL (synchronous=FULL), not only Durability::Acknowledged ones.
        bool fullSyncEveryCommit = false;
        /// How long a writer waits for another connection's write transaction, ms.
        int busyTimeoutMs = 10000;
    };

    /// Opens (creating if needed) `<stateDir>/runbox.db` and migrates it to the latest schema.
    /// Returns nullptr and sets @p error when the directory or file cannot be used, the file is
    /// not a database, a migration fails, or the file was written by a newer Runbox (its
    /// user_version is above latestSchemaVersion(); it is never downgraded).
    static std::unique_ptr<Database> open(const QString& stateDir, QString* error);
    static std::unique_ptr<Database> open(const QString& stateDir, const Options& options,
                                          QString* error);
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    /// The calling thread's connection, opened and configured on first use. Do not keep the
    /// returned handle beyond the current call, and never pass it to another thread.
    QSqlDatabase connection() const;

    /// The statement prepared from @p sql on the calling thread's connection: prepared on first
    /// use, then reused, so SQLite parses nothing again (https://sqlite.org/c3ref/stmt.html).
    /// Bind every placeholder on each use (bound values stay from the last one), exec, read,
    /// then finish() it. Owned here; valid on this thread until its connection is removed.
    /// For hot statements with a fixed text only: each distinct text stays cached.
    QSqlQuery* statement(const QString& sql) const;

    /// Absolute path of the database file.
    QString path() const { return m_path; }
    /// The schema version in the file (PRAGMA user_version) as of open().
    int schemaVersion() const { return m_schemaVersion; }
    const Options& options() const { return m_options; }

private:
    struct ConnectionRegistry;
    Database(QString path, Options options);
    QSqlDatabase threadConnection(QString* error) const;
    QSqlDatabase openConnection(const QString& name, QString* error) const;

    QString m_path;
    Options m_options;
    int m_schemaVersion = 0;
    quint64 m_instance = 0;
    std::shared_ptr<ConnectionRegistry> m_registry;
};

} // namespace runbox::store
