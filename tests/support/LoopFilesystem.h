#pragma once

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>

#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox::testsupport {

/// A filesystem made in a sparse image file and loop-mounted on a temporary directory, in this
/// test process's own private mount namespace: its children (the agent) see the mount, the host
/// never does, and the mount (hence the loop device, `mount -o loop` sets autoclear) goes away
/// with the process however it ends. Needs root, /dev/loop-control and the mkfs tool; create()
/// says which is missing, for the test to QSKIP with it.
class LoopFilesystem final {
public:
    LoopFilesystem() = default;
    LoopFilesystem(const LoopFilesystem&) = delete;
    LoopFilesystem& operator=(const LoopFilesystem&) = delete;
    ~LoopFilesystem() {
        if (m_mounted)
            ::umount2(QFile::encodeName(m_mountPoint->path()).constData(), MNT_DETACH);
    }

    /// Moves this process into a mount namespace of its own where nothing propagates back to
    /// the host (unshare(2) CLONE_NEWNS, then mount(2) MS_REC | MS_PRIVATE on /). Idempotent.
    /// Returns "" or why not.
    static QString privateMountNamespace() {
        static QString result = [] {
            if (::geteuid() != 0)
                return QStringLiteral("not root");
            if (::unshare(CLONE_NEWNS) != 0)
                return QStringLiteral("unshare(CLONE_NEWNS) failed");
            if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
                return QStringLiteral("cannot make / private in the new mount namespace");
            return QString();
        }();
        return result;
    }

    /// Runs `@p mkfs... IMAGE` on a sparse image of @p sizeBytes, then `mount -o
    /// loop,@p options`. Returns "" once mounted, else why not (with the tool's own words).
    QString create(const QStringList& mkfs, qint64 sizeBytes, const QString& options) {
        if (::geteuid() != 0)
            return QStringLiteral("not root (loop mounts need it)");
        if (!QFile::exists(QStringLiteral("/dev/loop-control")))
            return QStringLiteral("no /dev/loop-control");
        if (QStandardPaths::findExecutable(mkfs.first(), {"/usr/sbin", "/sbin", "/usr/bin"})
                .isEmpty())
            return QStringLiteral("%1 is not installed").arg(mkfs.first());
        if (QString why = privateMountNamespace(); !why.isEmpty())
            return why;
        m_imageDir = std::make_unique<QTemporaryDir>();
        m_mountPoint = std::make_unique<QTemporaryDir>();
        if (!m_imageDir->isValid() || !m_mountPoint->isValid())
            return QStringLiteral("cannot make temporary directories");
        const QString image = m_imageDir->filePath(QStringLiteral("fs.img"));
        QFile file(image);
        if (!file.open(QIODevice::WriteOnly) || !file.resize(sizeBytes))
            return QStringLiteral("cannot make the image file %1").arg(image);
        file.close();
        QStringList args = mkfs.mid(1);
        args << image;
        if (QString why = run(mkfs.first(), args); !why.isEmpty())
            return why;
        QString why =
            run(QStringLiteral("mount"), {QStringLiteral("-o"), QStringLiteral("loop,") + options,
                                          image, m_mountPoint->path()});
        if (!why.isEmpty())
            return why;
        m_mounted = true;
        // Sandbox uids traverse the path to their workspace.
        ::chmod(QFile::encodeName(m_mountPoint->path()).constData(), 0755);
        return QString();
    }

    QString path() const { return m_mountPoint ? m_mountPoint->path() : QString(); }

private:
    static QString run(const QString& program, const QStringList& args) {
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(program, args);
        if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit ||
            p.exitCode() != 0)
            return QStringLiteral("%1 %2 failed: %3")
                .arg(program, args.join(' '), QString::fromLocal8Bit(p.readAll()).trimmed());
        return QString();
    }

    std::unique_ptr<QTemporaryDir> m_imageDir;
    std::unique_ptr<QTemporaryDir> m_mountPoint;
    bool m_mounted = false;
};

} // namespace runbox::testsupport
