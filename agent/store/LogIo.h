#pragma once

#include "agent/Error.h"

#include <QByteArray>
#include <QString>

/// Small POSIX file helpers shared by the log writer and reader (internal to the store).
namespace runbox::store::logio {

/// Internal (500) `log_io_error`: "<what> <path>: <strerror(err)>".
Error ioError(const QString& what, const QString& path, int err);
/// Internal (500) `log_corrupt`: a record that cannot be decoded inside the valid part of a log.
Error corrupt(const QString& path, qint64 pos);

/// pread() retrying EINTR and short reads; returns the bytes read (short only at end of file),
/// or -1 on error.
qint64 preadFully(int fd, char* out, qint64 len, qint64 pos);

/// fsync() of a directory, so that files created or removed in it survive power loss.
void fsyncDirectory(const QString& dir);

/// Reads pieces at increasing positions through a window of @p windowBytes, so that many small
/// pieces cost one pread() per window instead of one each. Pieces larger than half the window
/// are read directly.
class WindowReader final {
public:
    WindowReader(int fd, qint64 windowBytes) : m_fd(fd), m_windowBytes(windowBytes) {}
    /// Copies exactly @p len bytes at @p pos to @p out; false at end of file or on error.
    bool read(qint64 pos, char* out, qint64 len);

private:
    int m_fd;
    qint64 m_windowBytes;
    qint64 m_pos = 0;
    QByteArray m_window;
};

} // namespace runbox::store::logio
