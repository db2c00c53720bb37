#include "agent/store/LogStore.h"

#include "agent/store/ExecutionRecord.h"
#include "agent/store/LogIo.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMutexLocker>
#include <QRegularExpression>
#include <QSet>

namespace runbox::store {

namespace {

/// Finished logs kept open for readers; beyond it, unused finished ones are dropped (and
/// reloaded from disk on the next read).
constexpr qsizetype kCachedFinishedLogs = 128;

Error invalidId(const QString& id) {
    return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_execution_id"),
                 QStringLiteral("%1 is not a valid execution id").arg(id.left(200))};
}

} // namespace

LogStore::LogStore(const QString& stateDir, QObject* parent)
    : QObject(parent), m_dir(QDir(stateDir).absoluteFilePath(QStringLiteral("logs"))) {}

LogStore::~LogStore() = default;

bool LogStore::initialize(QString* error) {
    if (!QDir().mkpath(m_dir)) {
        *error = QStringLiteral("cannot create %1").arg(m_dir);
        return false;
    }
    QFile::setPermissions(m_dir, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return true;
}

std::optional<Error> LogStore::create(const QString& executionId, qint64 maxOutputBytes) {
    if (!isValidExecutionId(executionId))
        return invalidId(executionId);
    QMutexLocker lock(&m_mutex);
    if (m_logs.contains(executionId))
        return Error{ErrorKind::Conflict, QStringLiteral("log_exists"),
                     QStringLiteral("a log for %1 already exists").arg(executionId)};
    Error error;
    auto log = ExecutionLog::create(m_dir, executionId, maxOutputBytes, &error);
    if (!log)
        return error;
    m_logs.insert(executionId, log);
    return std::nullopt;
}

qint64 LogStore::append(const QString& executionId, LogStream stream, QByteArrayView data,
                        Error* error) {
    std::shared_ptr<ExecutionLog> log;
    {
        QMutexLocker lock(&m_mutex);
        log = m_logs.value(executionId);
    }
    if (!log) {
        if (error)
            *error = Error{ErrorKind::NotFound, QStringLiteral("log_not_found"),
                           QStringLiteral("no log is being written for %1").arg(executionId)};
        return -1;
    }
    const qint64 first = log->append(stream, data, error);
    if (first >= 0 && !data.isEmpty())
        Q_EMIT appended(executionId, first + data.size());
    return first;
}

std::optional<Error> LogStore::finish(const QString& executionId) {
    Error error;
    const auto log = acquire(executionId, &error);
    if (!log)
        return error;
    if (const auto failed = log->finish())
        return failed;
    Q_EMIT finished(executionId);
    return std::nullopt;
}

std::optional<Error> LogStore::read(const QString& executionId, qint64 fromOffset, qint64 maxBytes,
                                    LogReadResult* out) const {
    Error error;
    const auto log = acquire(executionId, &error);
    if (!log)
        return error;
    return log->read(fromOffset, maxBytes, out);
}

std::optional<Error> LogStore::info(const QString& executionId, LogInfo* out) const {
    Error error;
    const auto log = acquire(executionId, &error);
    if (!log)
        return error;
    *out = log->info();
    return std::nullopt;
}

std::optional<Error> LogStore::recover(const QString& executionId, const QString& reason) {
    Error error;
    const auto log = acquire(executionId, &error);
    if (!log)
        return error;
    if (log->info().finished)
        return std::nullopt;
    if (const auto failed = log->recover(reason))
        return failed;
    Q_EMIT finished(executionId);
    return std::nullopt;
}

QStringList LogStore::recoverAll(const QString& reason, QStringList* errors) {
    static const QRegularExpression headName(QStringLiteral("^(.+)\\.log$"));
    QStringList recovered;
    const QStringList names =
        QDir(m_dir).entryList({QStringLiteral("*.log")}, QDir::Files, QDir::Name);
    for (const QString& name : names) {
        const QString id = headName.match(name).captured(1);
        if (!isValidExecutionId(id))
            continue;
        std::shared_ptr<ExecutionLog> cached;
        {
            QMutexLocker lock(&m_mutex);
            cached = m_logs.value(id);
        }
        if (cached && cached->isWritable())
            continue; // this process is writing it: not a dead agent's
        if (!cached && ExecutionLog::endsWithEndRecord(m_dir, id))
            continue; // finished: skip the full scan
        cached.reset();
        Error error;
        const auto log = acquire(id, &error);
        if (log && log->info().finished)
            continue;
        const auto failed = log ? recover(id, reason) : std::optional<Error>(error);
        if (failed) {
            if (errors)
                errors->append(QStringLiteral("%1: %2").arg(id, failed->message));
            continue;
        }
        recovered.append(id);
    }
    return recovered;
}

QString LogStore::logIdOfFile(const QString& fileName) {
    static const QRegularExpression tail(QStringLiteral("^(.+)\\.log\\.[1-9][0-9]*$"));
    QString id;
    if (const auto match = tail.match(fileName); match.hasMatch())
        id = match.captured(1);
    else if (fileName.endsWith(QLatin1String(".log")))
        id = fileName.chopped(4);
    return isValidExecutionId(id) ? id : QString();
}

QHash<QString, qint64> LogStore::diskBytesByLog() const {
    QHash<QString, qint64> bytes;
    const QFileInfoList files =
        QDir(m_dir).entryInfoList(QDir::Files | QDir::Hidden, QDir::Unsorted);
    for (const QFileInfo& file : files)
        if (const QString id = logIdOfFile(file.fileName()); !id.isEmpty())
            bytes[id] += file.size();
    return bytes;
}

QHash<QString, qint64> LogStore::diskBytes(const QStringList& ids) const {
    QHash<QString, qint64> bytes;
    for (const QString& id : ids)
        bytes.insert(id, 0);
    const auto files = filesOf(ids);
    for (auto it = files.begin(); it != files.end(); ++it)
        for (const auto& [path, size] : it.value())
            bytes[it.key()] += size;
    return bytes;
}

qint64 LogStore::remove(const QStringList& ids, QStringList* skipped) {
    QStringList removable;
    {
        QMutexLocker lock(&m_mutex);
        for (const QString& id : ids) {
            const auto log = m_logs.value(id);
            if (log && log->isWritable()) {
                if (skipped)
                    skipped->append(id);
                continue;
            }
            m_logs.remove(id);
            removable.append(id);
        }
    }
    qint64 freed = 0;
    const auto files = filesOf(removable);
    for (auto it = files.begin(); it != files.end(); ++it)
        for (const auto& [path, size] : it.value()) {
            if (QFile::remove(path))
                freed += size;
            else
                qWarning("warning: log store: cannot delete %s", qPrintable(path));
        }
    if (!files.isEmpty())
        logio::fsyncDirectory(m_dir);
    return freed;
}

QHash<QString, QList<QPair<QString, qint64>>> LogStore::filesOf(const QStringList& ids) const {
    QHash<QString, QList<QPair<QString, qint64>>> files;
    if (ids.isEmpty())
        return files;
    const QSet<QString> wanted(ids.begin(), ids.end());
    const QDir dir(m_dir);
    for (const QString& name : dir.entryList(QDir::Files | QDir::Hidden, QDir::Unsorted)) {
        const QString id = logIdOfFile(name);
        if (!wanted.contains(id))
            continue;
        const QFileInfo info(dir.filePath(name));
        files[id].append({info.filePath(), info.size()});
    }
    return files;
}

std::shared_ptr<ExecutionLog> LogStore::acquire(const QString& executionId, Error* error) const {
    if (!isValidExecutionId(executionId)) {
        *error = invalidId(executionId);
        return nullptr;
    }
    QMutexLocker lock(&m_mutex);
    if (const auto log = m_logs.value(executionId))
        return log;
    auto log = ExecutionLog::load(m_dir, executionId, error);
    if (!log)
        return nullptr;
    trimCacheLocked();
    m_logs.insert(executionId, log);
    return log;
}

void LogStore::trimCacheLocked() const {
    if (m_logs.size() < kCachedFinishedLogs * 2)
        return;
    qsizetype finishedCount = 0;
    for (auto it = m_logs.begin(); it != m_logs.end();) {
        const bool idle = it.value().use_count() == 1 && !it.value()->isWritable();
        if (idle && ++finishedCount > kCachedFinishedLogs / 2)
            it = m_logs.erase(it);
        else
            ++it;
    }
}

} // namespace runbox::store
