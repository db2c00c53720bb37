#pragma once

#include "agent/Error.h"
#include "agent/store/LogFormat.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QMutex>
#include <QString>

#include <map>
#include <memory>
#include <optional>
#include <sys/uio.h>
#include <vector>

namespace runbox::store {

/// Which pipe a chunk of output came from.
enum class LogStream : quint8 { Stdout = 1, Stderr = 2 };

/// A piece of a log as read back: data of one stream, or a gap dropped by retention.
struct LogChunk {
    enum class Kind { Stdout, Stderr, Gap };
    Kind kind = Kind::Stdout;
    qint64 offset = 0;   ///< logical offset of the first byte (of the gap, for Gap)
    QByteArray data;     ///< the bytes (empty for Gap)
    qint64 gapBytes = 0; ///< for Gap: how many bytes were dropped
    /// Logical offset just past this chunk.
    qint64 endOffset() const { return offset + (kind == Kind::Gap ? gapBytes : data.size()); }
};

/// The answer of a read: chunks covering exactly [request offset, nextOffset).
struct LogReadResult {
    QList<LogChunk> chunks;
    qint64 nextOffset = 0; ///< where the next read continues
    qint64 endOffset = 0;  ///< the log's end when read
    bool finished = false; ///< no byte will ever be added
    /// Everything has been read and nothing more will come.
    bool atEnd() const { return finished && nextOffset >= endOffset; }
};

/// Summary of a log.
struct LogInfo {
    qint64 endOffset = 0;    ///< total output bytes received (both streams)
    qint64 stdoutBytes = 0;  ///< of which stdout
    qint64 stderrBytes = 0;  ///< of which stderr
    qint64 droppedBytes = 0; ///< dropped by retention (retentionTruncated when > 0)
    bool finished = false;
    bool lost = false;    ///< finished by recovery after the agent died, not by finish()
    QString endReason;    ///< recovery's reason when lost
    qint64 fileBytes = 0; ///< bytes of its retained segment files (headers and records)
};

/// How maxOutputBytes (M) is spent: the first headBytes = M/2 bytes are kept in segment 0, the
/// rest of the budget (tailBytes) keeps the most recent bytes in tail segments of segmentBytes
/// each (tailBytes/8, at least min(tailBytes, 64 KiB), at most 64 MiB); the oldest tail segment
/// is deleted before the retained tail would exceed tailBytes. So at most M data bytes are kept,
/// the tail always holds more than tailBytes - segmentBytes of the latest output, and the run
/// never fails for producing more. M = 0: unlimited, nothing is dropped.
struct LogRetention {
    bool unlimited = true;
    qint64 headBytes = 0;
    qint64 tailBytes = 0;
    qint64 segmentBytes = 0;
    static LogRetention forLimit(qint64 maxOutputBytes);
};

/// One execution's log on disk (format: LogFormat.h). Thread-safe: one writer thread appends
/// while any number of readers read. Used through LogStore.
class ExecutionLog final {
public:
    /// Creates `<dir>/<id>.log` (fails with Conflict (409) `log_exists` if any file of the log
    /// exists).
    static std::shared_ptr<ExecutionLog> create(const QString& dir, const QString& id,
                                                qint64 maxOutputBytes, Error* error);
    /// Opens an existing log by scanning its segments (NotFound (404) `log_not_found` if none).
    static std::shared_ptr<ExecutionLog> load(const QString& dir, const QString& id, Error* error);
    /// Cheap check without scanning: does the newest segment file end with an end record?
    /// (Start-up recovery uses it to skip the many finished logs.)
    static bool endsWithEndRecord(const QString& dir, const QString& id);
    ~ExecutionLog();
    ExecutionLog(const ExecutionLog&) = delete;
    ExecutionLog& operator=(const ExecutionLog&) = delete;

    /// Appends output; returns the logical offset of its first byte, or -1 with @p error
    /// (Conflict (409) `log_finished`, Internal (500) `log_io_error`; a failed write is rolled back
    /// by truncation).
    qint64 append(LogStream stream, QByteArrayView data, Error* error);
    /// Writes the end record, fdatasync()s every retained segment and fsync()s the directory.
    std::optional<Error> finish();
    /// For a log left unfinished by a dead agent: cuts a torn trailing record, writes an end
    /// record marked lost with @p reason, syncs. No-op for a finished log.
    std::optional<Error> recover(const QString& reason);
    /// See LogStore::read().
    std::optional<Error> read(qint64 fromOffset, qint64 maxBytes, LogReadResult* out) const;
    LogInfo info() const;
    bool isWritable() const;

private:
    struct Segment {
        quint32 index = 0;
        QString path;
        qint64 startOffset = 0;
        qint64 endOffset = 0;
        qint64 fileSize = 0; ///< bytes of valid content (header + whole records)
        qint64 stdoutBefore = 0;
        qint64 stderrBefore = 0;
        bool needsHeader = false; ///< recovery found no valid header (crash during create)
        std::vector<std::pair<qint64, qint64>> marks; ///< sparse (logical offset, file pos)
        qint64 lastMarkPos = 0;
    };
    struct Span; // a segment's readable range, snapshotted for a read

    ExecutionLog(QString dir, QString id);
    /// The segment files of @p id in @p dir by index (`<id>.log` = 0, `<id>.log.<n>` = n).
    static std::map<quint32, QString> segmentFiles(const QString& dir, const QString& id);
    QString segmentPath(quint32 index) const;
    bool openWriter(Error* error);
    qint64 roomInCurrentSegment() const;
    bool rollover(Error* error);
    void makeRoomInTail(qint64 incoming);
    bool writeRecords(logformat::RecordType type, QByteArrayView data, Error* error);
    bool writeAll(const QByteArray& bytes, Error* error);
    bool writeVector(std::vector<::iovec>& iov, qint64 total, Error* error);
    bool writeEndRecord(bool lost, const QString& reason, Error* error);
    void scanSegment(int fd, qint64 fileSize, Segment* segment, bool* sawEnd);
    bool readSpan(const Span& span, qint64* cursor, qint64* budget, QList<LogChunk>* chunks,
                  bool* vanished, Error* error) const;

    mutable QMutex m_mutex;
    QString m_dir;
    QString m_id;
    LogRetention m_retention;
    QList<Segment> m_segments; ///< retained segments, ascending
    QStringList m_brokenFiles; ///< trailing segment files without a valid header
    qint64 m_end = 0;
    qint64 m_stdoutBytes = 0;
    qint64 m_stderrBytes = 0;
    qint64 m_droppedBytes = 0;
    bool m_finished = false;
    bool m_lost = false;
    QString m_endReason;
    qint64 m_writebackFrom = 0; ///< file position of the last segment up to which writeback started
    int m_fd = -1; ///< writer fd of the last segment (O_APPEND), opened by the first append
    bool m_writable = false; ///< created by this process, not finished, no fatal write error
};

} // namespace runbox::store
