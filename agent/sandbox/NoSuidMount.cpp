#include "agent/sandbox/NoSuidMount.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox::sandbox {

namespace {

/// Whether @p path is a mount point in /proc/self/mountinfo (proc(5), field 5). Paths with
/// spaces are escaped there as \040; ours have none that matter (compared as written).
bool isMountPoint(const QString& path) {
    QFile info(QStringLiteral("/proc/self/mountinfo"));
    if (!info.open(QIODevice::ReadOnly))
        return false;
    const QByteArray want = QFile::encodeName(path);
    for (const QByteArray& line : info.readAll().split('\n'))
        if (line.split(' ').value(4) == want)
            return true;
    return false;
}

} // namespace

QString NoSuidMount::markerPath(const QString& markerDir, const QString& path) {
    const QByteArray digest =
        QCryptographicHash::hash(QFile::encodeName(path), QCryptographicHash::Sha256).toHex();
    return markerDir + QStringLiteral("/nosuid-") + QString::fromLatin1(digest.left(16)) +
           QStringLiteral(".mount");
}

bool NoSuidMount::markerNames(const QString& marker, const QString& path) {
    const int fd = ::open(QFile::encodeName(marker).constData(),
                          O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return false;
    struct stat st {};
    char text[4097] = {};
    const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid();
    const ssize_t n = regular ? ::read(fd, text, sizeof text - 1) : -1;
    ::close(fd);
    return n > 0 && QByteArray(text, int(n)) == QFile::encodeName(path) + '\n';
}

NoSuidMount::~NoSuidMount() {
    if (m_mounted.isEmpty())
        return;
    if (::umount2(QFile::encodeName(m_mounted).constData(), MNT_DETACH) == 0)
        QFile::remove(m_marker);
}

QString NoSuidMount::mount(const QString& dir, const QString& markerDir) {
    const QString path = QDir(dir).canonicalPath();
    if (path.isEmpty())
        return QStringLiteral("%1 does not exist").arg(dir);
    const QByteArray native = QFile::encodeName(path);
    if (!isMountPoint(path)) {
        if (::mount(native.constData(), native.constData(), nullptr, MS_BIND, nullptr) != 0)
            return QStringLiteral("cannot bind-mount %1 onto itself: %2")
                .arg(path, QString::fromLocal8Bit(std::strerror(errno)));
        m_mounted = path;
        m_marker = markerPath(markerDir, path);
        // Says "this mount is the agent's", so that the start after a crash adopts it. In the
        // agent's own state directory, never beside the mount (whose parent others may write):
        // created without following a link, owner-only.
        QFile::remove(m_marker);
        const int fd = ::open(QFile::encodeName(m_marker).constData(),
                              O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) {
            const QByteArray line = native + '\n';
            [[maybe_unused]] const ssize_t written =
                ::write(fd, line.constData(), size_t(line.size()));
            ::close(fd);
        }
    } else if (markerNames(markerPath(markerDir, path), path)) {
        m_mounted = path; // the agent's own, left by a crash: detached again at a clean stop
        m_marker = markerPath(markerDir, path);
    }
    if (::mount(nullptr, native.constData(), nullptr, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV,
                nullptr) != 0)
        return QStringLiteral("cannot remount %1 nosuid,nodev: %2")
            .arg(path, QString::fromLocal8Bit(std::strerror(errno)));
    return {};
}

} // namespace runbox::sandbox
