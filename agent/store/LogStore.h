#pragma once

#include "agent/Error.h"
#include "agent/store/ExecutionLog.h"

#include <QHash>
#include <QMutex>
#include <QObject>

#include <memory>
#include <optional>

namespace runbox::store {

/// Per-execution output logs under `<stateDir>/logs/` (format: LogFormat.h).
///
/// Every byte the process writes gets a *logical offset*: stdout and stderr share one offset
/// space, in the order the agent received them. read(offset) returns exactly the bytes at and
/// after that offset, each with its stream, so a client that saw bytes [0, N) resumes with
/// offset=N and neither misses nor repeats anything, even mid-chunk. Retention bounded by the
/// execution's maxOutputBytes keeps the head and the tail (LogRetention); a read across the
/// dropped range returns a Gap chunk (the `retentionTruncated` marker) with the exact offsets
/// dropped, and the retained bytes keep their original offsets. Retention never fails a run.
///
/// Durability (docs/STORE.md "Durability": SIGKILL of the agent loses nothing acknowledged):
/// - append() write()s each chunk before returning and before appended() is emitted, so any byte
///   a client could have been sent is in the kernel's page cache and survives SIGKILL;
/// - append() does not wait for the disk to finish: every 8 MiB of a segment, and when a segment
///   is full, its writeback is started (sync_file_range(2) SYNC_FILE_RANGE_WRITE, which may only
///   wait for room in the device queue), so finish() has little left to flush;
/// - finish() writes an end record, fdatasync()s every retained segment and fsync()s the
///   directory before returning: call it before recording the terminal state
///   (ExecutionRepository::finish()), so an exit that was reported implies a complete log, even
///   across power loss. It may block for the disk (milliseconds; more on a slow disk after
///   lots of output), so a busy agent may want to call it off the event-loop thread;
/// - after a crash, recoverAll() cuts torn trailing records and closes unfinished logs as lost.
///
/// Threads: appends to one log come from one thread at a time; reads may come from any thread;
/// appended() and finished() are emitted in the writer's thread (connect queued from others).
class LogStore final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LogStore)
public:
    /// Logs live in `<stateDir>/logs` (created by initialize()).
    explicit LogStore(const QString& stateDir, QObject* parent = nullptr);
    ~LogStore() override;

    /// Creates the logs directory (0700). False with @p error if it cannot.
    bool initialize(QString* error);
    QString logsDir() const { return m_dir; }

    /// Starts the log of @p executionId with retention bounded by @p maxOutputBytes (0 =
    /// unlimited). Create it when the execution is created (queued): followers can then attach
    /// at once, and a queued execution that never runs is closed with finish(). A log holds a
    /// file descriptor only from its first append to finish().
    /// InvalidArgument (400) `invalid_execution_id`, Conflict (409) `log_exists`, Internal (500)
    /// `log_io_error`.
    std::optional<Error> create(const QString& executionId, qint64 maxOutputBytes);
    /// Appends output and emits appended(); returns the logical offset of its first byte, or
    /// -1 with @p error (404 unknown or not being written, 409 finished, 500 I/O: the log keeps
    /// every byte appended before; the caller decides whether the run goes on).
    qint64 append(const QString& executionId, LogStream stream, QByteArrayView data,
                  Error* error = nullptr);
    /// Ends the log durably (see above) and emits finished().
    std::optional<Error> finish(const QString& executionId);

    /// Up to @p maxBytes data bytes from @p fromOffset (plus gap markers, which cost nothing),
    /// in order. Past the end of a live log: nothing yet (nextOffset = fromOffset); past the end
    /// of a finished one: InvalidArgument (400) `invalid_offset`. NotFound (404) `log_not_found` if
    /// there is no log.
    std::optional<Error> read(const QString& executionId, qint64 fromOffset, qint64 maxBytes,
                              LogReadResult* out) const;
    /// Byte counts and state of a log (NotFound (404) `log_not_found`).
    std::optional<Error> info(const QString& executionId, LogInfo* out) const;

    /// Start-up recovery of one log left unfinished by a dead agent: torn tail cut, end record
    /// marked lost with @p reason. No-op on a finished log. Emits finished() if it changed.
    std::optional<Error> recover(const QString& executionId, const QString& reason);
    /// recover() for every unfinished log in the directory; returns the ids recovered. Call at
    /// start-up, before anything is appended. Problems go to @p errors (one line each).
    QStringList recoverAll(const QString& reason, QStringList* errors = nullptr);

    /// The id whose log @p fileName (a name in logsDir()) belongs to: `<id>.log` is segment 0,
    /// `<id>.log.<n>` segment n (n > 0); "" for any other name.
    static QString logIdOfFile(const QString& fileName);
    /// The bytes of the files of every log in the directory, by id (one listing, one stat per
    /// file). For start-up: keep a running total afterwards (store::ExecutionRetention).
    QHash<QString, qint64> diskBytesByLog() const;
    /// Bytes of the files of each log of @p ids (one listing; only their files are stat()ed);
    /// an id without files maps to 0.
    QHash<QString, qint64> diskBytes(const QStringList& ids) const;
    /// Deletes every file of the logs of @p ids (one listing, then the directory is fsync()ed)
    /// and forgets them; a log being written is left alone and its id goes to @p skipped. A
    /// reader holding one of them sees its segments vanish. Returns the bytes freed.
    qint64 remove(const QStringList& ids, QStringList* skipped = nullptr);

Q_SIGNALS:
    /// New bytes: the log of @p executionId now ends at logical offset @p newEnd.
    void appended(const QString& executionId, qint64 newEnd);
    /// The log of @p executionId has ended: no more bytes will come.
    void finished(const QString& executionId);

private:
    std::shared_ptr<ExecutionLog> acquire(const QString& executionId, Error* error) const;
    /// The files (path, size) of the logs of @p ids, by id, from one listing.
    QHash<QString, QList<QPair<QString, qint64>>> filesOf(const QStringList& ids) const;
    void trimCacheLocked() const;

    QString m_dir;
    mutable QMutex m_mutex;
    mutable QHash<QString, std::shared_ptr<ExecutionLog>> m_logs;
};

} // namespace runbox::store
