#include "agent/sandbox/SeccompProfile.h"

#include "agent/sandbox/SeccompFilter.h"

#include <QDir>
#include <QFile>
#include <QHash>

#include <mutex>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox::sandbox {
namespace {

struct PublishedFile {
    dev_t device = 0;
    ino_t inode = 0;
    off_t size = 0;
};

struct PublishCache {
    std::mutex mutex;
    QHash<QString, PublishedFile> files; ///< by final path
};

PublishCache& cache() {
    static PublishCache instance;
    return instance;
}

QString errnoText(int error) {
    return QString::fromLocal8Bit(std::strerror(error));
}

/// True when @p path is still the regular 0600 file this process published.
bool stillPublished(const QString& path, const PublishedFile& published) {
    struct stat st {};
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0 && S_ISREG(st.st_mode) &&
           (st.st_mode & 07777) == 0600 && st.st_dev == published.device &&
           st.st_ino == published.inode && st.st_size == published.size;
}

bool ensurePrivateDirectory(const QString& dir, QString* error) {
    if (!QDir().mkpath(dir)) {
        *error = QStringLiteral("cannot create %1").arg(dir);
        return false;
    }
    if (::chmod(QFile::encodeName(dir).constData(), 0700) != 0) {
        *error = QStringLiteral("cannot make %1 private: %2").arg(dir, errnoText(errno));
        return false;
    }
    return true;
}

void syncDirectory(const QString& dir) {
    const int fd = ::open(QFile::encodeName(dir).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

/// Writes the program to a fresh temp file next to @p finalPath (0600, fsync'd) and renames it
/// over @p finalPath: readers see the old inode or the new one, never a partial program.
bool exportAtomically(SeccompProfileKind kind, const QString& dir, const QString& finalPath,
                      PublishedFile* published, QString* error) {
    QByteArray tempName = QFile::encodeName(finalPath + QStringLiteral(".XXXXXX"));
    const int fd = ::mkostemp(tempName.data(), O_CLOEXEC);
    if (fd < 0) {
        *error =
            QStringLiteral("cannot create a temporary file in %1: %2").arg(dir, errnoText(errno));
        return false;
    }
    auto fail = [&](const QString& message) {
        *error = message;
        ::close(fd);
        ::unlink(tempName.constData());
        return false;
    };
    if (!SeccompFilter::exportBpf(kind, fd, error))
        return fail(*error);
    if (::fchmod(fd, 0600) != 0)
        return fail(QStringLiteral("cannot chmod the seccomp profile: %1").arg(errnoText(errno)));
    if (::fsync(fd) != 0)
        return fail(QStringLiteral("cannot fsync the seccomp profile: %1").arg(errnoText(errno)));
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        return fail(QStringLiteral("cannot stat the seccomp profile: %1").arg(errnoText(errno)));
    // A classic-BPF program is a non-empty array of 8-byte instructions.
    if (st.st_size <= 0 || st.st_size % 8 != 0)
        return fail(QStringLiteral("libseccomp exported a malformed program (%1 bytes)")
                        .arg(qint64(st.st_size)));
    if (::close(fd) != 0) {
        const int closeError = errno;
        ::unlink(tempName.constData());
        *error = QStringLiteral("cannot write the seccomp profile: %1").arg(errnoText(closeError));
        return false;
    }
    if (::rename(tempName.constData(), QFile::encodeName(finalPath).constData()) != 0) {
        const int renameError = errno;
        ::unlink(tempName.constData());
        *error = QStringLiteral("cannot publish %1: %2").arg(finalPath, errnoText(renameError));
        return false;
    }
    syncDirectory(dir);
    *published = PublishedFile{st.st_dev, st.st_ino, st.st_size};
    return true;
}

} // namespace

QString toString(SeccompProfileKind kind) {
    switch (kind) {
    case SeccompProfileKind::Baseline:
        return QStringLiteral("baseline");
    case SeccompProfileKind::Network:
        return QStringLiteral("network");
    case SeccompProfileKind::Npu:
        return QStringLiteral("npu");
    case SeccompProfileKind::UnixSockets:
        return QStringLiteral("unix-sockets");
    }
    return QStringLiteral("baseline");
}

QString SeccompProfile::nativeArch() {
#if defined(__x86_64__)
    return QStringLiteral("x86_64");
#elif defined(__aarch64__)
    return QStringLiteral("aarch64");
#else
    return {};
#endif
}

QString SeccompProfile::publish(SeccompProfileKind kind, const QString& stateDir, QString* error) {
    QString ignored;
    QString* err = error ? error : &ignored;
    err->clear();
    const QString arch = nativeArch();
    if (arch.isEmpty()) {
        *err = QStringLiteral("seccomp profiles exist only for x86_64 and aarch64");
        return {};
    }
    if (stateDir.isEmpty()) {
        *err = QStringLiteral("no state directory given for the seccomp profiles");
        return {};
    }
    const QString dir = QDir(QDir(stateDir).absolutePath()).filePath(QStringLiteral("seccomp"));
    const QString finalPath =
        QDir(dir).filePath(QStringLiteral("%1-%2.bpf").arg(toString(kind), arch));

    const std::lock_guard<std::mutex> lock(cache().mutex);
    const auto it = cache().files.constFind(finalPath);
    if (it != cache().files.constEnd() && stillPublished(finalPath, it.value()))
        return finalPath;

    if (!ensurePrivateDirectory(dir, err))
        return {};
    PublishedFile published;
    if (!exportAtomically(kind, dir, finalPath, &published, err))
        return {};
    cache().files.insert(finalPath, published);
    return finalPath;
}

void SeccompProfile::resetCacheForTests() {
    const std::lock_guard<std::mutex> lock(cache().mutex);
    cache().files.clear();
}

} // namespace runbox::sandbox
