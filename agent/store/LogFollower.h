#pragma once

#include "agent/store/LogStore.h"

#include <QObject>
#include <QPointer>

namespace runbox::store {

/// Follows one execution's log from a logical offset (for `GET …/log?offset=N&follow=true`).
///
/// Usage: construct it, connect readyRead(), and on each readyRead() call readNext() until it
/// returns no chunks; stop when atEnd() (then send the `exit` event: every byte has been
/// delivered). A first readyRead() is queued at construction, so bytes that already exist are
/// delivered without waiting for new output. readyRead() is coalesced: it is not emitted again
/// until readNext() has been called; after an append it is queued (emitted from the event loop),
/// so a burst of appends is read in one go. Lives in the thread that created it; the LogStore may
/// append from another thread (its signals then arrive queued).
class LogFollower final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LogFollower)
public:
    LogFollower(const LogStore* store, const QString& executionId, qint64 fromOffset,
                QObject* parent = nullptr);

    /// The next logical offset this follower will read.
    qint64 position() const { return m_position; }
    QString executionId() const { return m_executionId; }

    /// Reads up to @p maxBytes data bytes from position() and advances past them (and past any
    /// gap). Errors as LogStore::read(); a 404 while the execution has not started yet is the
    /// caller's to interpret.
    std::optional<Error> readNext(qint64 maxBytes, LogReadResult* out);
    /// True once the log is finished and everything up to its end has been read.
    bool atEnd() const { return m_atEnd; }

Q_SIGNALS:
    /// Bytes past position() exist, or the log has finished.
    void readyRead();

private:
    void onAppended(const QString& executionId, qint64 newEnd);
    void onFinished(const QString& executionId);

    QPointer<const LogStore> m_store;
    QString m_executionId;
    qint64 m_position = 0;
    bool m_notified = false;
    bool m_atEnd = false;
};

} // namespace runbox::store
