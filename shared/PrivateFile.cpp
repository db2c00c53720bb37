#include "shared/PrivateFile.h"

#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox {

namespace {

QString strerrorText(int error) {
    return QString::fromLocal8Bit(std::strerror(error));
}

/// The descriptor, closed on scope exit.
struct Descriptor {
    int fd;
    ~Descriptor() {
        if (fd >= 0)
            ::close(fd);
    }
};

} // namespace

bool PrivateFile::read(const QString& path, QByteArray* contents, QString* error,
                       qsizetype maxBytes) {
    return read(path, contents, error, Owner::ThisUser, maxBytes);
}

bool PrivateFile::read(const QString& path, QByteArray* contents, QString* error, Owner owner,
                       qsizetype maxBytes) {
    contents->clear();
    const Descriptor file{
        ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)};
    if (file.fd < 0) {
        *error = QStringLiteral("cannot read %1: %2").arg(path, strerrorText(errno));
        return false;
    }
    struct stat st {};
    if (::fstat(file.fd, &st) != 0) {
        *error = QStringLiteral("cannot stat %1: %2").arg(path, strerrorText(errno));
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        *error =
            QStringLiteral("%1 is not a regular file (a FIFO, a socket or a device?)").arg(path);
        return false;
    }
    if (st.st_uid != ::geteuid() && !(owner == Owner::ThisUserOrAny && ::geteuid() == 0)) {
        *error = QStringLiteral("%1 is owned by uid %2, not by this user (uid %3): whoever owns "
                                "it may read it or choose what it holds")
                     .arg(path)
                     .arg(st.st_uid)
                     .arg(::geteuid());
        return false;
    }
    if ((st.st_mode & 077) != 0) {
        *error = QStringLiteral("%1 may be read or written by group or others (mode %2); "
                                "chmod 600 it")
                     .arg(path)
                     .arg(st.st_mode & 0777, 4, 8, QLatin1Char('0'));
        return false;
    }
    if (st.st_size > maxBytes) {
        *error = QStringLiteral("%1 is larger than %2 bytes").arg(path).arg(maxBytes);
        return false;
    }
    // Read from the same descriptor, a byte more than allowed to see one that grew meanwhile.
    QByteArray data(maxBytes + 1, Qt::Uninitialized);
    qsizetype done = 0;
    while (done < data.size()) {
        const ssize_t n = ::read(file.fd, data.data() + done, size_t(data.size() - done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            *error = QStringLiteral("cannot read %1: %2").arg(path, strerrorText(errno));
            return false;
        }
        if (n == 0)
            break;
        done += n;
    }
    if (done > maxBytes) {
        *error = QStringLiteral("%1 is larger than %2 bytes").arg(path).arg(maxBytes);
        return false;
    }
    data.truncate(done);
    *contents = data;
    return true;
}

} // namespace runbox
