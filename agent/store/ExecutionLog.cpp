#include "agent/store/ExecutionLog.h"

#include "agent/store/LogIo.h"

#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutexLocker>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

namespace runbox::store {

using namespace logformat;
using namespace logio;

namespace {

constexpr qint64 kMarkEvery = 256 * 1024; ///< file bytes between sparse index marks
constexpr qint64 kMinSegmentBytes = 64 * 1024;
constexpr qint64 kMaxSegmentBytes = 64 * 1024 * 1024;
/// File bytes written between two writeback starts (sync_file_range(2), SYNC_FILE_RANGE_WRITE):
/// a log that grows quickly is written back as it grows, so finish()'s fdatasync() finds only
/// the last few MiB dirty instead of everything.
constexpr qint64 kWritebackEvery = 8 * 1024 * 1024;

} // namespace

LogRetention LogRetention::forLimit(qint64 maxOutputBytes) {
    LogRetention r;
    if (maxOutputBytes <= 0)
        return r;
    r.unlimited = false;
    r.headBytes = maxOutputBytes / 2;
    r.tailBytes = maxOutputBytes - r.headBytes;
    r.segmentBytes =
        std::clamp(r.tailBytes / 8, std::min(r.tailBytes, kMinSegmentBytes), kMaxSegmentBytes);
    return r;
}

ExecutionLog::ExecutionLog(QString dir, QString id) : m_dir(std::move(dir)), m_id(std::move(id)) {}

ExecutionLog::~ExecutionLog() {
    if (m_fd >= 0)
        ::close(m_fd);
}

QString ExecutionLog::segmentPath(quint32 index) const {
    const QString head = QDir(m_dir).filePath(m_id + QStringLiteral(".log"));
    return index == 0 ? head : head + QLatin1Char('.') + QString::number(index);
}

std::shared_ptr<ExecutionLog> ExecutionLog::create(const QString& dir, const QString& id,
                                                   qint64 maxOutputBytes, Error* error) {
    std::shared_ptr<ExecutionLog> log(new ExecutionLog(dir, id));
    log->m_retention = LogRetention::forLimit(maxOutputBytes);
    Segment head;
    head.path = log->segmentPath(0);
    const int fd = ::open(QFile::encodeName(head.path).constData(),
                          O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) {
        *error = errno == EEXIST ? Error{ErrorKind::Conflict, QStringLiteral("log_exists"),
                                         QStringLiteral("a log for %1 already exists").arg(id)}
                                 : ioError(QStringLiteral("cannot create"), head.path, errno);
        return nullptr;
    }
    log->m_fd = fd;
    head.lastMarkPos = kSegmentHeaderSize;
    log->m_segments.append(head);
    if (!log->writeAll(encodeSegmentHeader(SegmentHeader{}), error)) {
        ::unlink(QFile::encodeName(head.path).constData());
        return nullptr;
    }
    // The writer fd is opened again by the first append: a queued execution holds none.
    ::close(log->m_fd);
    log->m_fd = -1;
    log->m_writable = true;
    return log;
}

bool ExecutionLog::openWriter(Error* error) {
    if (m_fd >= 0)
        return true;
    const QString& path = m_segments.constLast().path;
    m_fd = ::open(QFile::encodeName(path).constData(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (m_fd >= 0)
        return true;
    *error = ioError(QStringLiteral("cannot open"), path, errno);
    return false;
}

qint64 ExecutionLog::roomInCurrentSegment() const {
    if (m_retention.unlimited)
        return std::numeric_limits<qint64>::max();
    const Segment& current = m_segments.constLast();
    const qint64 size = current.endOffset - current.startOffset;
    return (current.index == 0 ? m_retention.headBytes : m_retention.segmentBytes) - size;
}

qint64 ExecutionLog::append(LogStream stream, QByteArrayView data, Error* error) {
    Error ignored;
    Error* err = error ? error : &ignored;
    QMutexLocker lock(&m_mutex);
    if (m_finished || !m_writable) {
        *err = Error{ErrorKind::Conflict, QStringLiteral("log_finished"),
                     QStringLiteral("the log of %1 is finished").arg(m_id)};
        return -1;
    }
    if (!data.isEmpty() && !openWriter(err))
        return -1;
    const qint64 first = m_end;
    const RecordType type = stream == LogStream::Stdout ? RecordType::Stdout : RecordType::Stderr;
    qsizetype pos = 0;
    while (pos < data.size()) {
        const qint64 room = roomInCurrentSegment();
        if (room <= 0) {
            if (!rollover(err))
                return -1;
            continue;
        }
        const qint64 n = std::min<qint64>(room, data.size() - pos);
        if (!m_retention.unlimited && m_segments.constLast().index > 0)
            makeRoomInTail(n);
        if (!writeRecords(type, data.sliced(pos, n), err))
            return -1;
        pos += n;
    }
    const qint64 fileSize = m_segments.constLast().fileSize;
    if (fileSize - m_writebackFrom >= kWritebackEvery) {
        // Start writeback of what was written since the last start, without waiting for it
        // (the durability point stays finish()'s fdatasync()).
        ::sync_file_range(m_fd, m_writebackFrom, fileSize - m_writebackFrom, SYNC_FILE_RANGE_WRITE);
        m_writebackFrom = fileSize;
    }
    return first;
}

void ExecutionLog::makeRoomInTail(qint64 incoming) {
    qint64 retained = 0;
    for (const Segment& s : std::as_const(m_segments))
        retained += s.index > 0 ? s.endOffset - s.startOffset : 0;
    // The current segment plus @p incoming never exceeds segmentBytes <= tailBytes, so dropping
    // older tail segments always suffices.
    while (retained + incoming > m_retention.tailBytes && m_segments.size() > 2) {
        const Segment dropped = m_segments.takeAt(1);
        retained -= dropped.endOffset - dropped.startOffset;
        m_droppedBytes += dropped.endOffset - dropped.startOffset;
        if (::unlink(QFile::encodeName(dropped.path).constData()) != 0)
            qWarning("log retention: cannot delete %s: %s", qPrintable(dropped.path),
                     std::strerror(errno));
    }
}

bool ExecutionLog::rollover(Error* error) {
    // Start writing the full segment back without waiting (finish() waits for it, if the
    // segment is still retained then); the writer never blocks on the disk here.
    ::sync_file_range(m_fd, 0, 0, SYNC_FILE_RANGE_WRITE);
    ::close(m_fd);
    m_fd = -1;
    Segment next;
    next.index = m_segments.constLast().index + 1;
    next.path = segmentPath(next.index);
    next.startOffset = next.endOffset = m_end;
    next.stdoutBefore = m_stdoutBytes;
    next.stderrBefore = m_stderrBytes;
    next.lastMarkPos = kSegmentHeaderSize;
    const int fd = ::open(QFile::encodeName(next.path).constData(),
                          O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) {
        *error = ioError(QStringLiteral("cannot create"), next.path, errno);
        return false;
    }
    m_fd = fd;
    m_writebackFrom = 0;
    m_segments.append(next);
    if (writeAll(encodeSegmentHeader(SegmentHeader{next.index, next.startOffset, next.stdoutBefore,
                                                   next.stderrBefore}),
                 error))
        return true;
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1; // no segment to write to: the log keeps what it has, further appends fail
    m_writable = false;
    ::unlink(QFile::encodeName(next.path).constData());
    m_segments.removeLast();
    return false;
}

bool ExecutionLog::writeRecords(RecordType type, QByteArrayView data, Error* error) {
    const qsizetype records = (data.size() + kMaxRecordData - 1) / kMaxRecordData;
    std::vector<std::array<char, kRecordHeaderSize>> headers;
    headers.resize(size_t(records));
    std::vector<::iovec> iov;
    iov.reserve(size_t(records) * 2);
    Segment& segment = m_segments.last();
    qint64 offset = m_end;
    qint64 filePos = segment.fileSize;
    qint64 lastMarkPos = segment.lastMarkPos;
    std::vector<std::pair<qint64, qint64>> marks;
    for (qsizetype pos = 0, r = 0; pos < data.size(); ++r) {
        const qint64 n = std::min<qint64>(kMaxRecordData, data.size() - pos);
        if (filePos - lastMarkPos >= kMarkEvery || (segment.marks.empty() && marks.empty())) {
            marks.emplace_back(offset, filePos);
            lastMarkPos = filePos;
        }
        encodeRecordHeader(RecordHeader{type, quint32(n), offset}, headers[size_t(r)].data());
        iov.push_back(::iovec{headers[size_t(r)].data(), size_t(kRecordHeaderSize)});
        iov.push_back(::iovec{const_cast<char*>(data.data() + pos), size_t(n)});
        pos += n;
        offset += n;
        filePos += kRecordHeaderSize + n;
    }
    if (!writeVector(iov, filePos - segment.fileSize, error))
        return false;
    segment.marks.insert(segment.marks.end(), marks.begin(), marks.end());
    segment.lastMarkPos = lastMarkPos;
    segment.endOffset = offset;
    m_end = offset;
    (type == RecordType::Stdout ? m_stdoutBytes : m_stderrBytes) += data.size();
    return true;
}

bool ExecutionLog::writeAll(const QByteArray& bytes, Error* error) {
    std::vector<::iovec> iov{::iovec{const_cast<char*>(bytes.constData()), size_t(bytes.size())}};
    return writeVector(iov, bytes.size(), error);
}

bool ExecutionLog::writeVector(std::vector<::iovec>& iov, qint64 total, Error* error) {
    Segment& segment = m_segments.last();
    size_t first = 0;
    qint64 done = 0;
    while (done < total) {
        const int count = int(std::min<size_t>(iov.size() - first, IOV_MAX));
        const ssize_t n = ::writev(m_fd, iov.data() + first, count);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const int err = n < 0 ? errno : ENOSPC;
            *error = ioError(QStringLiteral("cannot write"), segment.path, err);
            // Cut the partial write so the file stays a sequence of whole records.
            if (::ftruncate(m_fd, off_t(segment.fileSize)) != 0) {
                ::close(m_fd);
                m_fd = -1; // cannot continue safely; readers still see the valid part
                m_writable = false;
            }
            return false;
        }
        done += n;
        for (size_t left = size_t(n); left > 0;) { // skip what was written
            ::iovec& v = iov[first];
            const size_t step = std::min(left, v.iov_len);
            v.iov_base = static_cast<char*>(v.iov_base) + step;
            v.iov_len -= step;
            left -= step;
            if (v.iov_len == 0)
                ++first;
        }
    }
    segment.fileSize += total;
    return true;
}

bool ExecutionLog::writeEndRecord(bool lost, const QString& reason, Error* error) {
    const QByteArray payload =
        QJsonDocument(QJsonObject{{QStringLiteral("lost"), lost},
                                  {QStringLiteral("reason"), reason.left(1000)}})
            .toJson(QJsonDocument::Compact);
    char header[kRecordHeaderSize];
    encodeRecordHeader(RecordHeader{RecordType::End, quint32(payload.size()), m_end}, header);
    if (!writeAll(QByteArray(header, kRecordHeaderSize) + payload, error))
        return false;
    if (::fdatasync(m_fd) != 0) {
        *error = ioError(QStringLiteral("cannot sync"), m_segments.constLast().path, errno);
        return false;
    }
    ::close(m_fd);
    m_fd = -1;
    // Earlier retained segments: their writeback was started at rollover; wait for it.
    for (qsizetype i = 0; i + 1 < m_segments.size(); ++i) {
        const int fd =
            ::open(QFile::encodeName(m_segments.at(i).path).constData(), O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            ::fdatasync(fd);
            ::close(fd);
        }
    }
    fsyncDirectory(m_dir);
    m_finished = true;
    m_writable = false;
    m_lost = lost;
    m_endReason = lost ? reason : QString();
    return true;
}

std::optional<Error> ExecutionLog::finish() {
    QMutexLocker lock(&m_mutex);
    if (m_finished)
        return std::nullopt;
    Error error;
    if (!m_writable)
        return Error{ErrorKind::Conflict, QStringLiteral("log_finished"),
                     QStringLiteral("the log of %1 is not open for writing").arg(m_id)};
    if (!openWriter(&error))
        return error;
    if (!writeEndRecord(false, QString(), &error))
        return error;
    return std::nullopt;
}

bool ExecutionLog::isWritable() const {
    QMutexLocker lock(&m_mutex);
    return m_writable && !m_finished;
}

LogInfo ExecutionLog::info() const {
    QMutexLocker lock(&m_mutex);
    qint64 fileBytes = 0;
    for (const Segment& segment : m_segments)
        fileBytes += segment.fileSize;
    return LogInfo{m_end,      m_stdoutBytes, m_stderrBytes, m_droppedBytes,
                   m_finished, m_lost,        m_endReason,   fileBytes};
}

} // namespace runbox::store
