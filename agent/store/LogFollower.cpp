#include "agent/store/LogFollower.h"

#include <QMetaObject>

namespace runbox::store {

LogFollower::LogFollower(const LogStore* store, const QString& executionId, qint64 fromOffset,
                         QObject* parent)
    : QObject(parent), m_store(store), m_executionId(executionId), m_position(fromOffset) {
    connect(store, &LogStore::appended, this, &LogFollower::onAppended);
    connect(store, &LogStore::finished, this, &LogFollower::onFinished);
    m_notified = true;
    QMetaObject::invokeMethod(this, &LogFollower::readyRead, Qt::QueuedConnection);
}

std::optional<Error> LogFollower::readNext(qint64 maxBytes, LogReadResult* out) {
    m_notified = false;
    if (!m_store)
        return Error{ErrorKind::Unavailable, QStringLiteral("log_unavailable"),
                     QStringLiteral("the log store has shut down")};
    if (const auto error = m_store->read(m_executionId, m_position, maxBytes, out))
        return error;
    m_position = out->nextOffset;
    m_atEnd = out->atEnd();
    return std::nullopt;
}

void LogFollower::onAppended(const QString& executionId, qint64 newEnd) {
    if (executionId != m_executionId || newEnd <= m_position || m_notified)
        return;
    m_notified = true;
    // Queued, not direct: the writer usually appends several pipe reads in one event-loop round
    // (SandboxProcess reads up to 16 in a row); the reader then takes them in one larger read
    // instead of one read and one socket write per append.
    QMetaObject::invokeMethod(this, &LogFollower::readyRead, Qt::QueuedConnection);
}

void LogFollower::onFinished(const QString& executionId) {
    if (executionId != m_executionId)
        return;
    // Always wake the reader: it must read up to the end to see atEnd().
    m_notified = true;
    Q_EMIT readyRead();
}

} // namespace runbox::store
