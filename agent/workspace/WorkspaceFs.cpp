#include "agent/workspace/WorkspaceFs.h"

#include "agent/workspace/WorkspaceRemoval.h"
#include "agent/workspace/WorkspaceTreeWalker.h"

#include <QJsonArray>

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace runbox::workspace {

namespace {

QByteArray readLinkAt(int dirFd, const char* name) {
    QByteArray buf(PATH_MAX, Qt::Uninitialized);
    const ssize_t n = ::readlinkat(dirFd, name, buf.data(), size_t(buf.size()));
    if (n < 0)
        return QByteArray();
    buf.truncate(qsizetype(n));
    return buf;
}

/// lstat of @p name in @p dirFd as a FileInfo (with the link target for symlinks).
Result<FileInfo> statAt(int dirFd, const QByteArray& name, const QByteArray& path) {
    struct stat st {};
    if (::fstatat(dirFd, name.constData(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errnoError(errno, QStringLiteral("stat"), path);
    FileInfo info = FileInfo::fromStat(name, st);
    if (info.type == FileType::Symlink)
        info.symlinkTarget = readLinkAt(dirFd, name.constData());
    return info;
}

Error symlinkRefused(const QByteArray& path) {
    return errnoError(ELOOP, QString(), path);
}

Error unsupportedType(const QByteArray& path) {
    return makeError(ErrorKind::InvalidArgument, "unsupported_file_type",
                     QStringLiteral("%1: not a regular file (FIFO, socket or device)")
                         .arg(QString::fromUtf8(path)));
}

} // namespace

qint64 ReadHandle::readAt(qint64 offset, char* buffer, qint64 maxBytes) const {
    ssize_t n;
    do {
        n = ::pread(fd.get(), buffer, size_t(maxBytes), off_t(offset));
    } while (n < 0 && errno == EINTR);
    return qint64(n);
}

QJsonObject Listing::toJson() const {
    QJsonArray items;
    for (const FileInfo& e : entries)
        items.append(e.toJson());
    return QJsonObject{{QStringLiteral("path"), QString::fromUtf8(path)},
                       {QStringLiteral("entries"), items},
                       {QStringLiteral("total"), total},
                       {QStringLiteral("offset"), offset},
                       {QStringLiteral("limit"), limit},
                       {QStringLiteral("nextOffset"),
                        nextOffset < 0 ? QJsonValue(QJsonValue::Null) : QJsonValue(nextOffset)}};
}

Result<WorkspaceFs> WorkspaceFs::open(const QString& rootPath) {
    const QByteArray p = rootPath.toLocal8Bit();
    const int fd = ::open(p.constData(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return makeError(ErrorKind::Internal, "workspace_unavailable",
                         QStringLiteral("cannot open the workspace directory: %1")
                             .arg(QString::fromLocal8Bit(std::strerror(errno))));
    return WorkspaceFs(UniqueFd(fd));
}

WorkspaceFs::WorkspaceFs(UniqueFd rootFd) : m_root(std::move(rootFd)) {}

Result<FileInfo> WorkspaceFs::stat(const WorkspacePath& path) const {
    if (path.isRoot()) {
        struct stat st {};
        if (::fstat(m_root.get(), &st) != 0)
            return errnoError(errno, QStringLiteral("stat"), QByteArray());
        return FileInfo::fromStat(QByteArrayView(), st);
    }
    auto parent = WorkspaceResolver::openDirectory(m_root.get(), path.parent(), O_PATH);
    if (!parent)
        return parent.error();
    return statAt(parent->get(), path.name(), path.toRelative());
}

Result<Listing> WorkspaceFs::list(const WorkspacePath& dir, qint64 offset, qint64 limit) const {
    if (offset < 0 || limit < 0 || limit > kMaxListLimit)
        return makeError(
            ErrorKind::InvalidArgument, "invalid_argument",
            QStringLiteral("offset must be >= 0 and limit within 0..%1").arg(kMaxListLimit));
    if (limit == 0)
        limit = kDefaultListLimit;
    const QByteArray rel = dir.toRelative();
    auto fd = WorkspaceResolver::openDirectory(m_root.get(), dir, O_RDONLY);
    if (!fd)
        return fd.error();
    auto names = DirectoryNames::read(fd->get(), rel);
    if (!names)
        return names.error();
    names->sort();
    Listing listing;
    listing.path = rel;
    listing.total = names->size();
    listing.offset = offset;
    listing.limit = limit;
    const qint64 end = std::min<qint64>(listing.total, offset + limit);
    for (qint64 i = offset; i < end; ++i) {
        const QByteArray name(names->cstr(i));
        auto info = statAt(fd->get(), name, dir.child(name).toRelative());
        if (!info) {
            if (info.error().kind == ErrorKind::NotFound)
                continue; // removed since readdir
            return info.error();
        }
        listing.entries.append(std::move(info.value()));
    }
    listing.nextOffset = end < listing.total ? end : -1;
    return listing;
}

Result<ReadHandle> WorkspaceFs::openForRead(const WorkspacePath& path) const {
    const QByteArray rel = path.toRelative();
    if (path.isRoot())
        return errnoError(EISDIR, QString(), rel);
    auto parent = WorkspaceResolver::openDirectory(m_root.get(), path.parent(), O_PATH);
    if (!parent)
        return parent.error();
    // Look at the type on an O_PATH descriptor first: opening a FIFO or device has effects.
    UniqueFd pinned(WorkspaceResolver::openOne(parent->get(), path.name(), O_PATH | O_NOFOLLOW));
    if (!pinned.valid())
        return errnoError(errno, QStringLiteral("open"), rel);
    struct stat pst {};
    if (::fstat(pinned.get(), &pst) != 0)
        return errnoError(errno, QStringLiteral("stat"), rel);
    if (S_ISLNK(pst.st_mode))
        return symlinkRefused(rel);
    if (S_ISDIR(pst.st_mode))
        return errnoError(EISDIR, QString(), rel);
    if (!S_ISREG(pst.st_mode))
        return unsupportedType(rel);
    UniqueFd file(
        WorkspaceResolver::openOne(parent->get(), path.name(), O_RDONLY | O_NONBLOCK | O_NOCTTY));
    if (!file.valid())
        return errnoError(errno, QStringLiteral("open"), rel);
    struct stat st {};
    if (::fstat(file.get(), &st) != 0)
        return errnoError(errno, QStringLiteral("stat"), rel);
    if (!S_ISREG(st.st_mode))
        return unsupportedType(rel);
    if (st.st_dev != pst.st_dev || st.st_ino != pst.st_ino)
        return makeError(ErrorKind::Conflict, "tree_changed",
                         QStringLiteral("%1: replaced while being opened; try again")
                             .arg(QString::fromUtf8(rel)));
    const int flags = ::fcntl(file.get(), F_GETFL);
    if (flags >= 0)
        ::fcntl(file.get(), F_SETFL, flags & ~O_NONBLOCK);
    ReadHandle handle;
    handle.info = FileInfo::fromStat(path.name(), st);
    handle.etag = handle.info.etag();
    handle.fd = std::move(file);
    return handle;
}

Result<WorkspaceUpload> WorkspaceFs::beginUpload(const WorkspacePath& path,
                                                 const UploadOptions& options) const {
    const QByteArray rel = path.toRelative();
    if (options.mode && *options.mode > 0777)
        return makeError(ErrorKind::InvalidArgument, "invalid_mode",
                         QStringLiteral("mode must be within 0..0777"));
    // Directories made for `parents=true` belong to this upload until it commits: any failure,
    // here or later (checksum, quota, client gone), takes them back (WorkspaceUpload::abort).
    std::vector<CreatedDirectory> created;
    auto fail = [&created](Error error) -> Result<WorkspaceUpload> {
        WorkspaceResolver::removeCreated(&created);
        return error;
    };
    auto parent =
        WorkspaceResolver::openParent(m_root.get(), path, options.createParents, m_owner, &created);
    if (!parent)
        return fail(parent.error());
    quint32 mode = options.mode.value_or(0644);
    struct stat st {};
    if (::fstatat(parent->get(), path.name().constData(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISDIR(st.st_mode))
            return fail(errnoError(EISDIR, QString(), rel));
        if (S_ISLNK(st.st_mode))
            return fail(symlinkRefused(rel));
        if (!S_ISREG(st.st_mode))
            return fail(unsupportedType(rel));
        if (options.conflict == ConflictPolicy::Reject)
            return fail(errnoError(EEXIST, QString(), rel));
        if (!options.mode)
            mode = quint32(st.st_mode & 0777);
    } else if (errno != ENOENT) {
        return fail(errnoError(errno, QStringLiteral("stat"), rel));
    }
    auto upload = WorkspaceUpload::begin(std::move(parent.value()), path.name(), rel, mode, options,
                                         m_owner, std::move(created));
    return upload;
}

Status WorkspaceFs::makeDirectory(const WorkspacePath& path, bool parents, quint32 mode) const {
    const QByteArray rel = path.toRelative();
    if (path.isRoot())
        return parents ? Status::success() : Status(errnoError(EEXIST, QString(), rel));
    if (mode > 0777)
        return makeError(ErrorKind::InvalidArgument, "invalid_mode",
                         QStringLiteral("mode must be within 0..0777"));
    if (parents) {
        auto dir = WorkspaceResolver::makeDirectories(m_root.get(), path, mode, m_owner);
        return dir ? Status::success() : Status(dir.error());
    }
    auto parent = WorkspaceResolver::openParent(m_root.get(), path, false, m_owner);
    if (!parent)
        return parent.error();
    const QByteArray name = path.name();
    if (::mkdirat(parent->get(), name.constData(), 0700) != 0)
        return errnoError(errno, QStringLiteral("mkdir"), rel);
    UniqueFd made(WorkspaceResolver::openOne(parent->get(), name, O_RDONLY | O_DIRECTORY));
    if (!made.valid())
        return errnoError(errno, QStringLiteral("open"), rel);
    if (m_owner && ::fchown(made.get(), m_owner->uid, m_owner->gid) != 0)
        return errnoError(errno, QStringLiteral("chown"), rel);
    if (::fchmod(made.get(), mode) != 0)
        return errnoError(errno, QStringLiteral("chmod"), rel);
    return Status::success();
}

Status WorkspaceFs::remove(const WorkspacePath& path, bool recursive) const {
    const QByteArray rel = path.toRelative();
    if (path.isRoot())
        return makeError(ErrorKind::InvalidArgument, "invalid_path",
                         QStringLiteral("invalid path: the workspace root cannot be removed"));
    auto parent = WorkspaceResolver::openDirectory(m_root.get(), path.parent(), O_PATH);
    if (!parent)
        return parent.error();
    return WorkspaceRemoval::removeEntry(parent->get(), path.name(), recursive, rel);
}

Status WorkspaceFs::move(const WorkspacePath& from, const WorkspacePath& to, bool overwrite,
                         bool createParents) const {
    if (from.isRoot() || to.isRoot())
        return makeError(ErrorKind::InvalidArgument, "invalid_path",
                         QStringLiteral("invalid path: the workspace root cannot be moved"));
    const QByteArray fromRel = from.toRelative();
    const QByteArray toRel = to.toRelative();
    auto src = WorkspaceResolver::openDirectory(m_root.get(), from.parent(), O_PATH);
    if (!src)
        return src.error();
    struct stat st {};
    if (::fstatat(src->get(), from.name().constData(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errnoError(errno, QStringLiteral("stat"), fromRel);
    auto dst = WorkspaceResolver::openParent(m_root.get(), to, createParents, m_owner);
    if (!dst)
        return dst.error();
    if (::renameat2(src->get(), from.name().constData(), dst->get(), to.name().constData(),
                    overwrite ? 0 : RENAME_NOREPLACE) == 0)
        return Status::success();
    switch (errno) {
    case EINVAL:
        return makeError(ErrorKind::InvalidArgument, "invalid_move",
                         QStringLiteral("cannot move %1 into itself (%2)")
                             .arg(QString::fromUtf8(fromRel), QString::fromUtf8(toRel)));
    case ENOENT:
        return errnoError(ENOENT, QStringLiteral("rename"), fromRel);
    case EXDEV:
        return makeError(ErrorKind::InvalidArgument, "cross_device",
                         QStringLiteral("%1 and %2 are on different filesystems")
                             .arg(QString::fromUtf8(fromRel), QString::fromUtf8(toRel)));
    default:
        return errnoError(errno, QStringLiteral("rename"), toRel);
    }
}

} // namespace runbox::workspace
