#include "agent/store/Database.h"

#include "agent/store/Migrations.h"

#include <QDir>
#include <QFileInfo>
#include <QMutexLocker>
#include <QSqlError>
#include <QSqlQuery>
#include <QThread>
#include <QVariant>

#include <atomic>

namespace runbox::store {

namespace {

std::atomic<quint64> g_instanceSerial{0};
std::atomic<quint64> g_threadSerial{0};

/// A number unique to the calling thread for the life of the process (QThread pointers can be
/// reused after a thread ends; this cannot).
quint64 currentThreadSerial() {
    thread_local const quint64 serial = ++g_threadSerial;
    return serial;
}

bool execPragma(QSqlDatabase& db, const QString& sql, QString* error, QVariant* result = nullptr) {
    QSqlQuery query(db);
    if (!query.exec(sql)) {
        *error = QStringLiteral("%1 failed: %2").arg(sql, query.lastError().text());
        return false;
    }
    if (result && query.next())
        *result = query.value(0);
    return true;
}

} // namespace

struct Database::ConnectionRegistry {
    QMutex mutex;
    QHash<quint64, QString> nameByThread;
    /// Prepared statements by thread and SQL text; only the owning thread touches its inner hash
    /// (the mutex guards the outer one). Cleared before the connection is removed.
    QHash<quint64, QHash<QString, std::shared_ptr<QSqlQuery>>> statementsByThread;
    /// Per thread, the last statement that did not prepare (kept for its caller's exec() only).
    QHash<quint64, std::shared_ptr<QSqlQuery>> failedByThread;
};

Database::Database(QString path, Options options)
    : m_path(std::move(path)), m_options(options), m_instance(++g_instanceSerial),
      m_registry(std::make_shared<ConnectionRegistry>()) {}

Database::~Database() {
    QStringList names;
    {
        QMutexLocker lock(&m_registry->mutex);
        names = m_registry->nameByThread.values();
        m_registry->nameByThread.clear();
        m_registry->statementsByThread.clear();
        m_registry->failedByThread.clear();
    }
    for (const QString& name : names)
        QSqlDatabase::removeDatabase(name);
}

std::unique_ptr<Database> Database::open(const QString& stateDir, QString* error) {
    return open(stateDir, Options{}, error);
}

std::unique_ptr<Database> Database::open(const QString& stateDir, const Options& options,
                                         QString* error) {
    if (!QDir().mkpath(stateDir)) {
        *error = QStringLiteral("cannot create state directory %1").arg(stateDir);
        return nullptr;
    }
    const QString path = QDir(stateDir).absoluteFilePath(QStringLiteral("runbox.db"));
    std::unique_ptr<Database> database(new Database(path, options));
    QSqlDatabase db = database->threadConnection(error);
    if (!db.isOpen())
        return nullptr;
    if (!migrations::migrate(db, migrations::latestVersion(), &database->m_schemaVersion, error))
        return nullptr;
    return database;
}

QSqlDatabase Database::connection() const {
    QString error;
    QSqlDatabase db = threadConnection(&error);
    if (!db.isOpen())
        qWarning("store: %s", qPrintable(error));
    return db;
}

QSqlQuery* Database::statement(const QString& sql) const {
    const quint64 thread = currentThreadSerial();
    QMutexLocker lock(&m_registry->mutex);
    std::shared_ptr<QSqlQuery>& slot = m_registry->statementsByThread[thread][sql];
    if (!slot) {
        lock.unlock(); // connection() takes the mutex too
        auto query = std::make_shared<QSqlQuery>(connection());
        lock.relock();
        // Kept even when prepare() failed (its exec() then reports why), but only until the next
        // call: a failure (no memory, a broken connection) is not cached for good.
        if (query->prepare(sql))
            m_registry->statementsByThread[thread][sql] = query;
        else
            m_registry->failedByThread[thread] = query;
        return query.get();
    }
    return slot.get();
}

QSqlDatabase Database::threadConnection(QString* error) const {
    const quint64 thread = currentThreadSerial();
    {
        QMutexLocker lock(&m_registry->mutex);
        const auto it = m_registry->nameByThread.constFind(thread);
        if (it != m_registry->nameByThread.constEnd())
            return QSqlDatabase::database(*it, false);
    }
    const QString name = QStringLiteral("runbox-store-%1-%2").arg(m_instance).arg(thread);
    QSqlDatabase db = openConnection(name, error);
    if (!db.isOpen()) {
        db = QSqlDatabase();
        QSqlDatabase::removeDatabase(name);
        return QSqlDatabase();
    }
    {
        QMutexLocker lock(&m_registry->mutex);
        m_registry->nameByThread.insert(thread, name);
    }
    // A worker QThread's connection goes away with the thread: finished() is emitted from the
    // finishing thread itself (direct connection), so the removal happens where it lives.
    std::weak_ptr<ConnectionRegistry> registry = m_registry;
    QObject::connect(QThread::currentThread(), &QThread::finished, [registry, thread, name] {
        if (const auto live = registry.lock()) {
            QMutexLocker lock(&live->mutex);
            live->statementsByThread.remove(thread);
            live->failedByThread.remove(thread);
            if (live->nameByThread.remove(thread) == 0)
                return;
        }
        QSqlDatabase::removeDatabase(name);
    });
    return db;
}

QSqlDatabase Database::openConnection(const QString& name, QString* error) const {
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
    if (!db.isValid()) {
        *error = QStringLiteral("the Qt SQLite driver (QSQLITE) is not available");
        return db;
    }
    db.setDatabaseName(m_path);
    db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(m_options.busyTimeoutMs));
    if (!db.open()) {
        *error = QStringLiteral("cannot open %1: %2").arg(m_path, db.lastError().text());
        return db;
    }
    QVariant mode;
    const QString sync =
        m_options.fullSyncEveryCommit ? QStringLiteral("FULL") : QStringLiteral("NORMAL");
    if (!execPragma(db, QStringLiteral("PRAGMA journal_mode=WAL"), error, &mode) ||
        !execPragma(db, QStringLiteral("PRAGMA synchronous=") + sync, error) ||
        !execPragma(db, QStringLiteral("PRAGMA foreign_keys=ON"), error)) {
        db.close();
        return db;
    }
    if (mode.toString().compare(QLatin1String("wal"), Qt::CaseInsensitive) != 0) {
        *error = QStringLiteral("%1: journal_mode is %2, WAL could not be enabled")
                     .arg(m_path, mode.toString());
        db.close();
    }
    return db;
}

} // namespace runbox::store
