// ExecutionLog: opening an existing log, recovery after a crash, and reading back.
#include "agent/store/ExecutionLog.h"

#include "agent/store/LogIo.h"

#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutexLocker>

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox::store {

using namespace logformat;
using namespace logio;

namespace {

constexpr qint64 kMarkEvery = 256 * 1024;    ///< as in ExecutionLog.cpp
constexpr qint64 kMaxChunkBytes = 64 * 1024; ///< a read merges adjacent records up to this size
constexpr int kReadRetries = 8;
constexpr qint64 kScanWindow = 4096;        ///< scanning reads headers only
constexpr qint64 kReadWindow = 1024 * 1024; ///< reading back takes data too

/// Adds @p data at @p offset to @p chunks, merging with the previous chunk when contiguous.
void appendChunk(QList<LogChunk>* chunks, LogChunk::Kind kind, qint64 offset, QByteArray data) {
    if (!chunks->isEmpty()) {
        LogChunk& last = chunks->last();
        if (last.kind == kind && last.endOffset() == offset &&
            last.data.size() + data.size() <= kMaxChunkBytes) {
            last.data.append(data);
            return;
        }
    }
    chunks->append(LogChunk{kind, offset, std::move(data), 0});
}

} // namespace

struct ExecutionLog::Span {
    QString path;
    qint64 startOffset = 0;
    qint64 endOffset = 0;
    qint64 hintOffset = 0; ///< a record boundary at or before the wanted offset
    qint64 hintPos = 0;    ///< its file position
};

std::shared_ptr<ExecutionLog> ExecutionLog::load(const QString& dir, const QString& id,
                                                 Error* error) {
    std::shared_ptr<ExecutionLog> log(new ExecutionLog(dir, id));
    const std::map<quint32, QString> files = segmentFiles(dir, id);
    if (files.empty()) {
        *error = Error{ErrorKind::NotFound, QStringLiteral("log_not_found"),
                       QStringLiteral("no log for execution %1").arg(id)};
        return nullptr;
    }
    bool sawEnd = false;
    for (const auto& [index, path] : files) {
        const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            *error = ioError(QStringLiteral("cannot open"), path, errno);
            return nullptr;
        }
        struct stat st {};
        ::fstat(fd, &st);
        char raw[kSegmentHeaderSize];
        SegmentHeader header;
        Segment segment;
        segment.index = index;
        segment.path = path;
        if (preadFully(fd, raw, kSegmentHeaderSize, 0) != kSegmentHeaderSize ||
            !decodeSegmentHeader(raw, &header) || header.index != index) {
            ::close(fd);
            // Only a crash while a segment was being created leaves a file without a valid
            // header, and that is always the newest file. Segment 0 is then started afresh.
            if (index == 0 && files.size() == 1) {
                segment.needsHeader = true;
                log->m_segments.append(segment);
            } else {
                log->m_brokenFiles.append(path);
            }
            continue;
        }
        segment.startOffset = segment.endOffset = header.startOffset;
        segment.stdoutBefore = header.stdoutBefore;
        segment.stderrBefore = header.stderrBefore;
        log->scanSegment(fd, st.st_size, &segment, &sawEnd);
        ::close(fd);
        log->m_segments.append(segment);
        if (sawEnd)
            break;
    }
    if (log->m_segments.isEmpty()) {
        *error = logio::corrupt(files.begin()->second, 0);
        return nullptr;
    }
    qint64 retained = 0;
    for (const Segment& s : std::as_const(log->m_segments))
        retained += s.endOffset - s.startOffset;
    log->m_end = log->m_segments.constLast().endOffset;
    log->m_droppedBytes = log->m_end - retained;
    log->m_finished = sawEnd;
    return log;
}

std::map<quint32, QString> ExecutionLog::segmentFiles(const QString& dir, const QString& id) {
    // `<id>.log` is segment 0, `<id>.log.<n>` segment n. Ids never contain wildcard characters,
    // and no other id's file can match: theirs end in `.log` or `.log.<digits>` after their id.
    const QString head = id + QStringLiteral(".log");
    std::map<quint32, QString> files;
    for (const QString& name : QDir(dir).entryList({head + QLatin1Char('*')}, QDir::Files)) {
        if (name == head) {
            files.emplace(0, QDir(dir).filePath(name));
            continue;
        }
        bool ok = false;
        const QString suffix = name.mid(head.size() + 1);
        const uint index = suffix.toUInt(&ok);
        if (name.at(head.size()) == QLatin1Char('.') && ok && index > 0 &&
            suffix == QString::number(index))
            files.emplace(index, QDir(dir).filePath(name));
    }
    return files;
}

bool ExecutionLog::endsWithEndRecord(const QString& dir, const QString& id) {
    const std::map<quint32, QString> files = segmentFiles(dir, id);
    if (files.empty())
        return false;
    const QString& path = files.rbegin()->second;
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st {};
    ::fstat(fd, &st);
    const qint64 size = st.st_size;
    const qint64 window =
        std::min<qint64>(size - kSegmentHeaderSize, kRecordHeaderSize + kMaxEndPayload);
    QByteArray tail(std::max<qint64>(window, 0), Qt::Uninitialized);
    const bool read =
        window >= kRecordHeaderSize && preadFully(fd, tail.data(), window, size - window) == window;
    ::close(fd);
    if (!read)
        return false;
    // The end record is the last thing in the file: a valid header of type End whose payload
    // reaches exactly the end of the file. The header CRC makes a false match negligible.
    for (qint64 p = window - kRecordHeaderSize; p >= 0; --p) {
        RecordHeader record;
        if (decodeRecordHeader(tail.constData() + p, &record) && record.type == RecordType::End &&
            p + kRecordHeaderSize + qint64(record.length) == window)
            return true;
    }
    return false;
}

void ExecutionLog::scanSegment(int fd, qint64 fileSize, Segment* segment, bool* sawEnd) {
    WindowReader reader(fd, kScanWindow);
    qint64 pos = kSegmentHeaderSize;
    qint64 offset = segment->startOffset;
    qint64 stdoutBytes = 0, stderrBytes = 0;
    segment->lastMarkPos = pos;
    char raw[kRecordHeaderSize];
    RecordHeader record;
    while (pos + kRecordHeaderSize <= fileSize && reader.read(pos, raw, kRecordHeaderSize) &&
           decodeRecordHeader(raw, &record) && record.offset == offset &&
           pos + kRecordHeaderSize + qint64(record.length) <= fileSize) {
        if (record.type == RecordType::End) {
            QByteArray payload(record.length, '\0');
            reader.read(pos + kRecordHeaderSize, payload.data(), record.length);
            const QJsonObject end = QJsonDocument::fromJson(payload).object();
            m_lost = end.value(QStringLiteral("lost")).toBool();
            m_endReason = end.value(QStringLiteral("reason")).toString();
            pos += kRecordHeaderSize + record.length;
            *sawEnd = true;
            break;
        }
        if (pos - segment->lastMarkPos >= kMarkEvery || segment->marks.empty()) {
            segment->marks.emplace_back(offset, pos);
            segment->lastMarkPos = pos;
        }
        (record.type == RecordType::Stdout ? stdoutBytes : stderrBytes) += record.length;
        offset += record.length;
        pos += kRecordHeaderSize + record.length;
    }
    // Anything after `pos` is a torn write (or follows the end record) and is ignored.
    segment->fileSize = pos;
    segment->endOffset = offset;
    m_stdoutBytes = segment->stdoutBefore + stdoutBytes;
    m_stderrBytes = segment->stderrBefore + stderrBytes;
}

std::optional<Error> ExecutionLog::recover(const QString& reason) {
    QMutexLocker lock(&m_mutex);
    if (m_finished)
        return std::nullopt;
    for (const QString& path : std::as_const(m_brokenFiles))
        ::unlink(QFile::encodeName(path).constData());
    m_brokenFiles.clear();
    Segment& last = m_segments.last();
    const int fd = ::open(QFile::encodeName(last.path).constData(),
                          O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0)
        return ioError(QStringLiteral("cannot open"), last.path, errno);
    if (last.needsHeader)
        last.fileSize = 0;
    if (::ftruncate(fd, off_t(last.fileSize)) != 0) {
        const int err = errno;
        ::close(fd);
        return ioError(QStringLiteral("cannot truncate"), last.path, err);
    }
    m_fd = fd;
    Error error;
    if (last.needsHeader) {
        if (!writeAll(encodeSegmentHeader(SegmentHeader{}), &error))
            return error;
        last.needsHeader = false;
        last.lastMarkPos = kSegmentHeaderSize;
    }
    if (!writeEndRecord(true, reason, &error))
        return error;
    return std::nullopt;
}

std::optional<Error> ExecutionLog::read(qint64 fromOffset, qint64 maxBytes,
                                        LogReadResult* out) const {
    if (fromOffset < 0 || maxBytes <= 0)
        return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_offset"),
                     QStringLiteral("offset must be >= 0 and the read size > 0")};
    for (int attempt = 0; attempt < kReadRetries; ++attempt) {
        LogReadResult result;
        QList<Span> spans;
        {
            QMutexLocker lock(&m_mutex);
            result.endOffset = m_end;
            result.finished = m_finished;
            if (fromOffset > m_end && m_finished)
                return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_offset"),
                             QStringLiteral("offset %1 is past the end of the log (%2 bytes)")
                                 .arg(fromOffset)
                                 .arg(m_end)};
            for (const Segment& s : m_segments) {
                if (s.endOffset <= fromOffset || s.needsHeader)
                    continue;
                Span span{s.path, s.startOffset, s.endOffset, s.startOffset, kSegmentHeaderSize};
                // The last mark at or before the wanted offset (marks ascend in both values).
                auto it = std::upper_bound(s.marks.begin(), s.marks.end(), fromOffset,
                                           [](qint64 value, const std::pair<qint64, qint64>& m) {
                                               return value < m.first;
                                           });
                if (it != s.marks.begin()) {
                    --it;
                    span.hintOffset = it->first;
                    span.hintPos = it->second;
                }
                spans.append(span);
            }
        }
        qint64 cursor = fromOffset;
        qint64 budget = maxBytes;
        bool vanished = false;
        for (const Span& span : std::as_const(spans)) {
            if (budget <= 0)
                break;
            if (cursor < span.startOffset) {
                result.chunks.append(
                    LogChunk{LogChunk::Kind::Gap, cursor, {}, span.startOffset - cursor});
                cursor = span.startOffset;
            }
            Error error;
            if (!readSpan(span, &cursor, &budget, &result.chunks, &vanished, &error))
                return error;
            if (vanished)
                break;
        }
        if (vanished)
            continue; // retention deleted a segment meanwhile: the next pass reports a gap
        result.nextOffset = std::max(cursor, fromOffset);
        *out = result;
        return std::nullopt;
    }
    return Error{ErrorKind::Unavailable, QStringLiteral("log_busy"),
                 QStringLiteral("the log moved too fast to be read, try again")};
}

bool ExecutionLog::readSpan(const Span& span, qint64* cursor, qint64* budget,
                            QList<LogChunk>* chunks, bool* vanished, Error* error) const {
    const int fd = ::open(QFile::encodeName(span.path).constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) {
            *vanished = true;
            return true;
        }
        *error = ioError(QStringLiteral("cannot open"), span.path, errno);
        return false;
    }
    // A window sized to what this read may return: small follow-up reads stay small.
    WindowReader reader(fd, std::clamp<qint64>(*budget + 4096, 4096, kReadWindow));
    qint64 pos = span.hintPos;
    qint64 offset = span.hintOffset;
    char raw[kRecordHeaderSize];
    RecordHeader record;
    bool ok = true;
    while (offset<span.endOffset&& * budget> 0) {
        if (!reader.read(pos, raw, kRecordHeaderSize) || !decodeRecordHeader(raw, &record) ||
            record.offset != offset || record.type == RecordType::End) {
            *error = logio::corrupt(span.path, pos);
            ok = false;
            break;
        }
        const qint64 recordEnd = offset + record.length;
        if (recordEnd > *cursor) {
            const qint64 skip = *cursor - offset;
            const qint64 n =
                std::min({qint64(record.length) - skip, *budget, span.endOffset - *cursor});
            QByteArray data(n, Qt::Uninitialized);
            if (!reader.read(pos + kRecordHeaderSize + skip, data.data(), n)) {
                *error = logio::corrupt(span.path, pos);
                ok = false;
                break;
            }
            appendChunk(chunks,
                        record.type == RecordType::Stdout ? LogChunk::Kind::Stdout
                                                          : LogChunk::Kind::Stderr,
                        *cursor, std::move(data));
            *cursor += n;
            *budget -= n;
        }
        pos += kRecordHeaderSize + record.length;
        offset = recordEnd;
    }
    ::close(fd);
    return ok;
}

} // namespace runbox::store
