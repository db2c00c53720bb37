#pragma once

#include "agent/workspace/WorkspaceFd.h"
#include "agent/workspace/WorkspaceFileInfo.h"
#include "agent/workspace/WorkspacePath.h"
#include "agent/workspace/WorkspaceResolver.h"
#include "agent/workspace/WorkspaceResult.h"
#include "agent/workspace/WorkspaceUpload.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace runbox::workspace {

/// An open regular file for a download (GET with Range/ETag).
struct ReadHandle {
    UniqueFd fd;   ///< O_RDONLY, blocking; the caller streams from it with readAt/pread
    FileInfo info; ///< fstat of the opened file (size for Content-Length and Range)
    QByteArray etag;

    /// pread(2) of up to @p maxBytes at @p offset (bytes); returns the count (0 at EOF) or -1.
    qint64 readAt(qint64 offset, char* buffer, qint64 maxBytes) const;
};

/// One page of a directory listing, entries sorted bytewise by name.
struct Listing {
    QByteArray path; ///< workspace-relative path of the directory
    QList<FileInfo> entries;
    qint64 total = 0; ///< number of entries in the directory
    qint64 offset = 0;
    qint64 limit = 0;
    qint64 nextOffset = -1; ///< -1 when this is the last page

    /// `{"path": str, "entries": [FileInfo::toJson()…], "total": n, "offset": n, "limit": n,
    ///   "nextOffset": n | null}`.
    QJsonObject toJson() const;
};

/// The host-side file API of one workspace (docs/contracts.md "Workspace file API").
/// Every path is a WorkspacePath (already decoded and validated) and is resolved by the kernel
/// from the root directory descriptor through WorkspaceResolver: no symlink is ever followed,
/// in any component; the last component is acted on with *at() calls relative to its pinned
/// parent. Symlinks are reported as links (with their target text) and removed or moved as
/// links. FIFOs, sockets and devices are listed as "other" and refused by openForRead.
///
/// Stateless apart from the root descriptor and owner: all methods are const and may run
/// concurrently from several threads. Writers must hold the workspace lease (the caller's job).
class WorkspaceFs final {
public:
    static constexpr qint64 kDefaultListLimit = 1000;
    static constexpr qint64 kMaxListLimit = 10000;

    /// Opens the workspace root directory @p rootPath (O_PATH|O_DIRECTORY|O_NOFOLLOW).
    static Result<WorkspaceFs> open(const QString& rootPath);
    /// Takes ownership of @p rootFd, a descriptor of the workspace root directory.
    explicit WorkspaceFs(UniqueFd rootFd);

    int rootFd() const { return m_root.get(); }
    /// Owner for files and directories created by uploads, mkdir and createParents
    /// (light workspaces: the workspace uid/gid). Unset: the agent's own.
    void setOwner(std::optional<WorkspaceOwner> owner) { m_owner = owner; }

    /// lstat of @p path (the root included). Symlinks: type symlink + target text.
    Result<FileInfo> stat(const WorkspacePath& path) const;

    /// Lists directory @p dir: entries [offset, offset+limit) of the name-sorted listing;
    /// @p limit 0 means kDefaultListLimit. 400 invalid_argument for offset < 0 or
    /// limit outside 0..kMaxListLimit; 400 not_a_directory; 400 symlink_not_followed.
    /// Memory: all names of the directory (to sort them); one fstatat per returned entry.
    Result<Listing> list(const WorkspacePath& dir, qint64 offset, qint64 limit) const;

    /// Opens regular file @p path for reading. 409 is_a_directory; 400 symlink_not_followed
    /// (the last component is a link); 400 unsupported_file_type (FIFO, socket, device — the
    /// type is checked on an O_PATH descriptor before anything is opened for reading, and a
    /// FIFO would not block: O_NONBLOCK); 409 tree_changed if swapped between the two opens.
    Result<ReadHandle> openForRead(const WorkspacePath& path) const;

    /// Starts an upload to @p path (see WorkspaceUpload). Checked now and again at commit:
    /// 409 file_exists (Reject), 409 is_a_directory, 400 symlink_not_followed (the target
    /// itself is a link; at commit time a link that appeared meanwhile is replaced, never
    /// followed), 400 unsupported_file_type (target is a FIFO/socket/device).
    Result<WorkspaceUpload> beginUpload(const WorkspacePath& path,
                                        const UploadOptions& options) const;

    /// Creates directory @p path (mode 0755 unless given; owner as setOwner). With
    /// @p parents, missing parents too and an existing directory is fine; without, an existing
    /// entry is 409 file_exists.
    Status makeDirectory(const WorkspacePath& path, bool parents, quint32 mode = 0755) const;

    /// Deletes @p path (WorkspaceRemoval::removeEntry). The root cannot be removed
    /// (400 invalid_path).
    Status remove(const WorkspacePath& path, bool recursive) const;

    /// Renames @p from to @p to with renameat2 (RENAME_NOREPLACE unless @p overwrite): a
    /// symlink moves as a link. 404 not_found (from), 409 file_exists, 409 directory_not_empty,
    /// 400 invalid_move (a directory into itself), 400 invalid_path (the root).
    Status move(const WorkspacePath& from, const WorkspacePath& to, bool overwrite,
                bool createParents = false) const;

private:
    UniqueFd m_root;
    std::optional<WorkspaceOwner> m_owner;
};

} // namespace runbox::workspace
