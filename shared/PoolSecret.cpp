#include "shared/PoolSecret.h"

#include "shared/Crypto.h"
#include "shared/PrivateFile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox {

QString PoolSecret::defaultPath(const QString& pool) {
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) +
           QStringLiteral("/runbox/pools/") + pool + QStringLiteral(".secret");
}

QByteArray PoolSecret::read(const QString& path, QString* error) {
    QByteArray contents;
    QString reason;
    if (!PrivateFile::read(path, &contents, &reason)) {
        *error = QStringLiteral("the pool secret: %1").arg(reason);
        return {};
    }
    const QByteArray secret = contents.trimmed();
    if (!crypto::isLowerHex(secret, 64)) {
        *error = QStringLiteral("the pool secret %1 does not hold 64 lowercase hex characters")
                     .arg(path);
        return {};
    }
    return secret;
}

QByteArray PoolSecret::readOrCreate(const QString& path, QString* error) {
    if (QFileInfo::exists(path))
        return read(path, error);
    const QString dir = QFileInfo(path).absolutePath();
    if (!QDir().mkpath(dir)) {
        *error = QStringLiteral("cannot create %1").arg(dir);
        return {};
    }
    ::chmod(QFile::encodeName(dir).constData(), 0700);
    // Written whole to a 0600 temporary file, then linked into place: a reader never sees half
    // a secret, and a secret another process made meanwhile is kept (link(2) does not replace).
    const QByteArray secret = crypto::randomBytes(32).toHex() + '\n';
    const QByteArray tmp = QFile::encodeName(path) + ".tmp-" + crypto::randomBytes(6).toHex();
    const int fd =
        ::open(tmp.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    const bool written =
        fd >= 0 &&
        ::write(fd, secret.constData(), size_t(secret.size())) == ssize_t(secret.size()) &&
        ::fsync(fd) == 0;
    if (fd >= 0)
        ::close(fd);
    const bool linked =
        written &&
        (::link(tmp.constData(), QFile::encodeName(path).constData()) == 0 || errno == EEXIST);
    ::unlink(tmp.constData());
    if (!linked) {
        *error = QStringLiteral("cannot write the pool secret %1").arg(path);
        return {};
    }
    return read(path, error);
}

QByteArray PoolSecret::hostToken(const QByteArray& secret, const QByteArray& hostNonce) {
    return crypto::hmacSha256(secret, "runbox-pool-host:" + hostNonce).toHex();
}

bool PoolSecret::validHostNonce(const QByteArray& nonce) {
    return crypto::isLowerHex(nonce, 32);
}

} // namespace runbox
