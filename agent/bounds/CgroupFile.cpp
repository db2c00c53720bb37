#include "agent/bounds/CgroupFile.h"

#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace runbox::bounds::cgroupfile {

QByteArray read(const QString& path, bool* ok) {
    QFile file(path);
    const bool opened = file.open(QIODevice::ReadOnly);
    if (ok)
        *ok = opened;
    return opened ? file.readAll() : QByteArray();
}

bool write(const QString& path, const QByteArray& value, QString* error) {
    const int fd = ::open(QFile::encodeName(path).constData(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        if (error)
            *error =
                QStringLiteral("%1: %2").arg(path, QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    const ssize_t written = ::write(fd, value.constData(), std::size_t(value.size()));
    const int writeErrno = errno;
    ::close(fd);
    if (written == ssize_t(value.size()))
        return true;
    if (error)
        *error = QStringLiteral("%1: %2").arg(
            path, written < 0 ? QString::fromLocal8Bit(std::strerror(writeErrno))
                              : QStringLiteral("short write"));
    return false;
}

qint64 keyedValue(const QByteArray& text, const QByteArray& key) {
    for (const QByteArray& line : text.split('\n')) {
        const QList<QByteArray> fields = line.simplified().split(' ');
        if (fields.size() == 2 && fields[0] == key) {
            bool isNumber = false;
            const qint64 value = fields[1].toLongLong(&isNumber);
            return isNumber ? value : -1;
        }
    }
    return -1;
}

qint64 singleValue(const QString& path) {
    bool ok = false;
    const QByteArray text = read(path, &ok).trimmed();
    if (!ok)
        return -1;
    bool isNumber = false;
    const qint64 value = text.toLongLong(&isNumber);
    return isNumber ? value : -1;
}

} // namespace runbox::bounds::cgroupfile
