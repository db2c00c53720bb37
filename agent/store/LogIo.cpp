#include "agent/store/LogIo.h"

#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace runbox::store::logio {

Error ioError(const QString& what, const QString& path, int err) {
    return Error{
        ErrorKind::Internal, QStringLiteral("log_io_error"),
        QStringLiteral("%1 %2: %3").arg(what, path, QString::fromLocal8Bit(std::strerror(err)))};
}

Error corrupt(const QString& path, qint64 pos) {
    return Error{ErrorKind::Internal, QStringLiteral("log_corrupt"),
                 QStringLiteral("%1: invalid record at byte %2").arg(path).arg(pos)};
}

qint64 preadFully(int fd, char* out, qint64 len, qint64 pos) {
    qint64 done = 0;
    while (done < len) {
        const ssize_t n = ::pread(fd, out + done, size_t(len - done), off_t(pos + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        done += n;
    }
    return done;
}

void fsyncDirectory(const QString& dir) {
    const int fd = ::open(QFile::encodeName(dir).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

bool WindowReader::read(qint64 pos, char* out, qint64 len) {
    if (pos >= m_pos && pos + len <= m_pos + m_window.size()) {
        std::memcpy(out, m_window.constData() + (pos - m_pos), size_t(len));
        return true;
    }
    if (len > m_windowBytes / 2)
        return preadFully(m_fd, out, len, pos) == len;
    m_window.resize(m_windowBytes);
    const qint64 got = preadFully(m_fd, m_window.data(), m_windowBytes, pos);
    m_window.resize(got < 0 ? 0 : got);
    m_pos = pos;
    if (got < len)
        return false;
    std::memcpy(out, m_window.constData() + (pos - m_pos), size_t(len));
    return true;
}

} // namespace runbox::store::logio
