#include "agent/sandbox/NoSuidMount.h"

#include <QDir>
#include <QFile>

#include <cerrno>
#include <cstring>
#include <sys/mount.h>

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

QString NoSuidMount::markerPath(const QString& path) {
    return path + QStringLiteral(".mounted");
}

NoSuidMount::~NoSuidMount() {
    if (m_mounted.isEmpty())
        return;
    if (::umount2(QFile::encodeName(m_mounted).constData(), MNT_DETACH) == 0)
        QFile::remove(markerPath(m_mounted));
}

QString NoSuidMount::mount(const QString& dir) {
    const QString path = QDir(dir).canonicalPath();
    if (path.isEmpty())
        return QStringLiteral("%1 does not exist").arg(dir);
    const QByteArray native = QFile::encodeName(path);
    if (!isMountPoint(path)) {
        if (::mount(native.constData(), native.constData(), nullptr, MS_BIND, nullptr) != 0)
            return QStringLiteral("cannot bind-mount %1 onto itself: %2")
                .arg(path, QString::fromLocal8Bit(std::strerror(errno)));
        m_mounted = path;
        // Says "this mount is the agent's", so that the start after a crash adopts it.
        QFile marker(markerPath(path));
        if (marker.open(QIODevice::WriteOnly | QIODevice::Truncate))
            marker.write(native + '\n');
    } else if (QFile::exists(markerPath(path))) {
        m_mounted = path; // the agent's own, left by a crash: detached again at a clean stop
    }
    if (::mount(nullptr, native.constData(), nullptr, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV,
                nullptr) != 0)
        return QStringLiteral("cannot remount %1 nosuid,nodev: %2")
            .arg(path, QString::fromLocal8Bit(std::strerror(errno)));
    return {};
}

} // namespace runbox::sandbox
