#pragma once

#include "agent/Error.h"
#include "agent/store/Database.h"

#include <QList>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>

#include <optional>

namespace runbox::store {

/// Maps a failed SQL call to the store error it becomes: SQLITE_BUSY / SQLITE_LOCKED (another
/// writer held the database past the busy timeout) → Unavailable (503) `store_busy`; anything else
/// (I/O error, disk full, corruption) → Internal (500) `store_error`. @p what names the operation
/// for the message.
Error storeError(const QSqlError& error, const QString& what);

/// A write transaction on the calling thread's connection: `BEGIN IMMEDIATE` (takes SQLite's
/// write lock up front, so two writers never deadlock upgrading a read lock) … `COMMIT`.
/// Rolled back when destroyed uncommitted. With Durability::Acknowledged the connection runs
/// this one commit with `synchronous=FULL` and goes back to NORMAL afterwards (see Durability).
class Transaction final {
public:
    Transaction(const Database& database, Durability durability);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;

    /// Whether BEGIN succeeded; if not, error() says why and nothing may be written.
    bool begun() const { return m_begun; }
    const Error& error() const { return m_error; }
    QSqlDatabase& db() { return m_db; }
    /// A query on this transaction's connection, prepared with @p sql (errors show on exec).
    QSqlQuery prepare(const QString& sql);
    /// The thread's cached statement for @p sql (Database::statement: bind every placeholder),
    /// finished at commit or rollback. For hot statements whose text never varies.
    QSqlQuery& prepareCached(const QString& sql);

    /// Commits. Returns the error if BEGIN or COMMIT failed (the transaction is then rolled back).
    std::optional<Error> commit();

private:
    void restoreSynchronous();
    void finishStatements();
    void rollback();

    const Database& m_database;
    QSqlDatabase m_db;
    QList<QSqlQuery*> m_statements; ///< handed out by prepareCached(), finished before COMMIT
    bool m_begun = false;
    bool m_done = false;
    bool m_raisedSync = false;
    Error m_error;
};

/// @p text, or an empty but non-null string: Qt Sql binds a null QString as SQL NULL, which the
/// NOT NULL text columns refuse.
inline QString sqlText(const QString& text) {
    return text.isNull() ? QStringLiteral("") : text;
}

/// Runs @p query (already prepared and bound); on failure fills @p error via storeError().
bool execQuery(QSqlQuery& query, const QString& what, Error* error);

} // namespace runbox::store
