#include "agent/store/Transaction.h"

namespace runbox::store {

namespace {
// SQLite primary result codes (https://sqlite.org/rescode.html).
constexpr int kSqliteBusy = 5;
constexpr int kSqliteLocked = 6;
} // namespace

Error storeError(const QSqlError& error, const QString& what) {
    const int code =
        error.nativeErrorCode().toInt() & 0xff; // extended codes keep it in the low byte
    if (code == kSqliteBusy || code == kSqliteLocked)
        return Error{ErrorKind::Unavailable, QStringLiteral("store_busy"),
                     QStringLiteral("%1: the database is busy, try again").arg(what)};
    return Error{ErrorKind::Internal, QStringLiteral("store_error"),
                 QStringLiteral("%1: %2").arg(what, error.text())};
}

bool execQuery(QSqlQuery& query, const QString& what, Error* error) {
    if (query.exec())
        return true;
    *error = storeError(query.lastError(), what);
    return false;
}

Transaction::Transaction(const Database& database, Durability durability)
    : m_database(database), m_db(database.connection()) {
    if (!m_db.isOpen()) {
        m_error = Error{ErrorKind::Internal, QStringLiteral("store_error"),
                        QStringLiteral("the database connection could not be opened")};
        return;
    }
    QSqlQuery query(m_db);
    if (durability == Durability::Acknowledged && !database.options().fullSyncEveryCommit) {
        if (!query.exec(QStringLiteral("PRAGMA synchronous=FULL"))) {
            m_error = storeError(query.lastError(), QStringLiteral("PRAGMA synchronous"));
            return;
        }
        m_raisedSync = true;
    }
    QSqlQuery& begin = *m_database.statement(QStringLiteral("BEGIN IMMEDIATE"));
    if (!begin.exec()) {
        m_error = storeError(begin.lastError(), QStringLiteral("begin transaction"));
        begin.finish();
        restoreSynchronous();
        return;
    }
    begin.finish();
    m_begun = true;
}

Transaction::~Transaction() {
    finishStatements();
    if (m_begun && !m_done)
        rollback();
    restoreSynchronous();
}

QSqlQuery Transaction::prepare(const QString& sql) {
    QSqlQuery query(m_db);
    query.prepare(sql);
    return query;
}

QSqlQuery& Transaction::prepareCached(const QString& sql) {
    QSqlQuery* query = m_database.statement(sql);
    m_statements.append(query);
    return *query;
}

void Transaction::finishStatements() {
    for (QSqlQuery* query : m_statements)
        query->finish();
    m_statements.clear();
}

void Transaction::rollback() {
    QSqlQuery& query = *m_database.statement(QStringLiteral("ROLLBACK"));
    query.exec();
    query.finish();
}

std::optional<Error> Transaction::commit() {
    if (!m_begun)
        return m_error;
    finishStatements(); // a statement still stepping would keep its read lock
    QSqlQuery& query = *m_database.statement(QStringLiteral("COMMIT"));
    m_done = true;
    if (!query.exec()) {
        m_error = storeError(query.lastError(), QStringLiteral("commit"));
        query.finish();
        rollback();
        restoreSynchronous();
        return m_error;
    }
    query.finish();
    restoreSynchronous();
    return std::nullopt;
}

void Transaction::restoreSynchronous() {
    if (!m_raisedSync)
        return;
    m_raisedSync = false;
    QSqlQuery query(m_db);
    query.exec(QStringLiteral("PRAGMA synchronous=NORMAL"));
}

} // namespace runbox::store
