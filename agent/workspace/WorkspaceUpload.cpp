#include "agent/workspace/WorkspaceUpload.h"

#include "shared/Crypto.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>

namespace runbox::workspace {

struct WorkspaceUpload::State {
    UniqueFd parent; // O_PATH descriptor of the target's directory
    UniqueFd file;
    QByteArray name;
    QByteArray relativePath;
    QByteArray tempName; // non-empty for the named-temp fallback while it exists
    quint32 mode = 0644;
    UploadOptions options;
    std::optional<WorkspaceOwner> owner;
    crypto::Sha256Stream sha;
    qint64 written = 0;
    qint64 writebackFrom = 0;                  ///< first byte whose writeback was not started yet
    std::vector<CreatedDirectory> createdDirs; ///< made for createParents; removed on abort
};

namespace {

std::atomic<bool> g_forceNamedTemp{false};

QByteArray randomTempName() {
    return QByteArrayLiteral(".runbox-upload-") + crypto::randomBytes(8).toHex();
}

/// Gives the O_TMPFILE @p fd the name @p name in @p dirFd (fails with EEXIST if taken).
int linkTmpfile(int fd, int dirFd, const QByteArray& name) {
    if (::linkat(fd, "", dirFd, name.constData(), AT_EMPTY_PATH) == 0)
        return 0;
    if (errno == EEXIST)
        return -1;
    // AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH on older kernels; /proc/self/fd works unprivileged.
    char procPath[64];
    std::snprintf(procPath, sizeof procPath, "/proc/self/fd/%d", fd);
    return ::linkat(AT_FDCWD, procPath, dirFd, name.constData(), AT_SYMLINK_FOLLOW);
}

} // namespace

std::optional<quint32> UploadOptions::parseMode(QStringView text) {
    if (text.isEmpty() || text.size() > 4)
        return std::nullopt;
    quint32 mode = 0;
    for (const QChar c : text) {
        if (c < u'0' || c > u'7')
            return std::nullopt;
        mode = mode * 8 + quint32(c.unicode() - u'0');
    }
    if (mode > 0777)
        return std::nullopt;
    return mode;
}

void WorkspaceUpload::setForceNamedTempForTesting(bool force) {
    g_forceNamedTemp.store(force);
}

WorkspaceUpload::WorkspaceUpload(std::unique_ptr<State> state) : d(std::move(state)) {}
WorkspaceUpload::WorkspaceUpload(WorkspaceUpload&&) noexcept = default;
WorkspaceUpload& WorkspaceUpload::operator=(WorkspaceUpload&& other) noexcept {
    if (this != &other) {
        abort();
        d = std::move(other.d);
    }
    return *this;
}
WorkspaceUpload::~WorkspaceUpload() {
    abort();
}

Result<WorkspaceUpload> WorkspaceUpload::begin(UniqueFd parentFd, const QByteArray& name,
                                               const QByteArray& relativePath, quint32 mode,
                                               const UploadOptions& options,
                                               const std::optional<WorkspaceOwner>& owner,
                                               std::vector<CreatedDirectory> createdDirs) {
    auto s = std::make_unique<State>();
    s->createdDirs = std::move(createdDirs);
    s->parent = std::move(parentFd);
    s->name = name;
    s->relativePath = relativePath;
    s->mode = mode;
    s->options = options;
    s->owner = owner;
    // "." relative to the pinned directory: no name lookup that a link could redirect.
    int fd = -1;
    errno = EOPNOTSUPP;
    if (!g_forceNamedTemp.load(std::memory_order_relaxed))
        fd = ::openat(s->parent.get(), ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
        for (int i = 0; i < 8 && fd < 0; ++i) {
            s->tempName = randomTempName();
            fd = ::openat(s->parent.get(), s->tempName.constData(),
                          O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
            if (fd < 0 && errno != EEXIST)
                break;
        }
        if (fd < 0)
            s->tempName.clear();
    }
    if (fd < 0) {
        const Error error = errnoError(errno, QStringLiteral("create"), relativePath);
        WorkspaceResolver::removeCreated(&s->createdDirs);
        return error;
    }
    s->file.reset(fd);
    return WorkspaceUpload(std::move(s));
}

bool WorkspaceUpload::isOpen() const {
    return d && d->file.valid();
}

qint64 WorkspaceUpload::bytesWritten() const {
    return d ? d->written : 0;
}

Status WorkspaceUpload::write(const char* data, qsizetype size) {
    if (!isOpen())
        return makeError(ErrorKind::Conflict, "upload_closed",
                         QStringLiteral("the upload is already finished"));
    if (d->options.maxBytes > 0 && d->written + size > d->options.maxBytes) {
        const QByteArray path = d->relativePath;
        const qint64 limit = d->options.maxBytes;
        abort();
        return makeError(
            ErrorKind::TooLarge, "upload_too_large",
            QStringLiteral("%1: upload exceeds %2 bytes").arg(QString::fromUtf8(path)).arg(limit));
    }
    if (d->options.hashContent)
        d->sha.addData(data, size);
    qsizetype done = 0;
    while (done < size) {
        const ssize_t n = ::write(d->file.get(), data + done, size_t(size - done));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            const Error err = errnoError(errno, QStringLiteral("write"), d->relativePath);
            abort();
            return err;
        }
        done += n;
    }
    d->written += size;
    if (d->options.durable && d->written - d->writebackFrom >= kWritebackBytes) {
        // Start writing back without waiting; commit()'s fsync is the durability point.
        ::sync_file_range(d->file.get(), d->writebackFrom, d->written - d->writebackFrom,
                          SYNC_FILE_RANGE_WRITE);
        d->writebackFrom = d->written;
    }
    return Status::success();
}

Result<FileInfo> WorkspaceUpload::commit(QByteArrayView expectedSha256Hex) {
    if (!isOpen())
        return makeError(ErrorKind::Conflict, "upload_closed",
                         QStringLiteral("the upload is already finished"));
    if (!d->options.hashContent && !expectedSha256Hex.isEmpty()) {
        abort();
        return makeError(ErrorKind::Internal, "internal_error",
                         QStringLiteral("an upload written without hashing has no hash to check"));
    }
    const QByteArray actual = d->options.hashContent ? d->sha.finalHex() : QByteArray();
    if (!expectedSha256Hex.isEmpty() &&
        !crypto::constantTimeEquals(expectedSha256Hex.toByteArray().toLower(), actual)) {
        const QByteArray path = d->relativePath;
        abort();
        return makeError(ErrorKind::InvalidArgument, "checksum_mismatch",
                         QStringLiteral("%1: body SHA-256 %2 does not match the declared %3")
                             .arg(QString::fromUtf8(path), QString::fromLatin1(actual),
                                  QString::fromLatin1(expectedSha256Hex.toByteArray())));
    }
    const int fd = d->file.get();
    const int dir = d->parent.get();
    auto fail = [this](const char* what) -> Error {
        const Error e = errnoError(errno, QString::fromLatin1(what), d->relativePath);
        abort();
        return e;
    };
    // chown first: it clears setuid/setgid bits, and fchmod must have the last word.
    if (d->owner && ::fchown(fd, d->owner->uid, d->owner->gid) != 0)
        return fail("chown");
    if (::fchmod(fd, d->mode & 0777) != 0)
        return fail("chmod");
    if (d->options.durable && ::fsync(fd) != 0)
        return fail("fsync");

    const bool reject = d->options.conflict == ConflictPolicy::Reject;
    const char* name = d->name.constData();
    if (d->tempName.isEmpty()) {
        if (reject) {
            if (linkTmpfile(fd, dir, d->name) != 0)
                return fail("link");
        } else {
            QByteArray temp;
            int rc = -1;
            for (int i = 0; i < 8 && rc != 0; ++i) {
                temp = randomTempName();
                rc = linkTmpfile(fd, dir, temp);
                if (rc != 0 && errno != EEXIST)
                    break;
            }
            if (rc != 0)
                return fail("link");
            if (::renameat(dir, temp.constData(), dir, name) != 0) {
                const int err = errno;
                ::unlinkat(dir, temp.constData(), 0);
                errno = err;
                return fail("rename");
            }
        }
    } else {
        int rc =
            ::renameat2(dir, d->tempName.constData(), dir, name, reject ? RENAME_NOREPLACE : 0);
        if (rc != 0 && reject && errno == EINVAL) {
            // Filesystem without RENAME_NOREPLACE: link(2) also refuses an existing name.
            rc = ::linkat(dir, d->tempName.constData(), dir, name, 0);
            if (rc == 0)
                ::unlinkat(dir, d->tempName.constData(), 0);
        }
        if (rc != 0)
            return fail("rename");
        d->tempName.clear();
    }

    struct stat st {};
    const int statRc = ::fstat(fd, &st);
    if (d->options.durable) {
        UniqueFd dirRead(::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (dirRead.valid())
            ::fsync(dirRead.get());
    }
    const QByteArray finalName = d->name;
    d->createdDirs.clear(); // published: the directories are the file's now
    d->file.reset();
    d.reset();
    if (statRc != 0)
        return makeError(ErrorKind::Internal, "io_error",
                         QStringLiteral("stat after commit failed"));
    return FileInfo::fromStat(finalName, st);
}

void WorkspaceUpload::abort() {
    if (!d)
        return;
    if (!d->tempName.isEmpty())
        ::unlinkat(d->parent.get(), d->tempName.constData(), 0);
    d->file.reset(); // the O_TMPFILE goes first
    d->parent.reset();
    WorkspaceResolver::removeCreated(&d->createdDirs);
    d.reset();
}

} // namespace runbox::workspace
