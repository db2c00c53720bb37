#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonObject>
#include <QString>

struct stat;

namespace runbox::workspace {

/// What a directory entry is, by lstat (a symlink is never followed).
enum class FileType { File, Directory, Symlink, Other };

/// Metadata of one workspace entry, from lstat semantics (fstatat AT_SYMLINK_NOFOLLOW).
struct FileInfo {
    QByteArray name; ///< last path segment, raw bytes; empty for the workspace root
    FileType type = FileType::Other;
    qint64 size = 0;           ///< st_size, bytes (for a symlink: length of its target)
    qint64 allocatedBytes = 0; ///< st_blocks * 512: what the entry really occupies on disk
    quint32 mode = 0;          ///< permission bits (st_mode & 07777)
    qint64 mtimeNs = 0;        ///< modification time, ns since the epoch
    quint64 dev = 0;
    quint64 ino = 0;
    QByteArray symlinkTarget; ///< for symlinks: the target text (readlinkat), never followed

    static FileInfo fromStat(QByteArrayView name, const struct stat& st);

    /// "file" | "directory" | "symlink" | "other" (FIFOs, sockets, devices).
    static QString typeName(FileType type);

    /// Strong ETag (RFC 9110 §8.8.3) for a file's current content: a quoted hex digest of
    /// dev, ino, size and mtime in ns. Changes whenever any of them does.
    QByteArray etag() const;

    /// `{"name": str, "type": "file"|"directory"|"symlink"|"other", "size": bytes,
    ///   "allocatedBytes": bytes, "mode": "0644" (octal string), "mtime": ISO-8601 UTC with ms,
    ///   "mtimeMs": ms since epoch, "target": str (symlinks only)}`.
    /// Names and targets that are not valid UTF-8 are shown lossily in `name`/`target` and
    /// exactly in `nameBase64`/`targetBase64`.
    QJsonObject toJson() const;

    /// The one-entry answer of `GET …/files/{path}?stat=true` and `POST …/files:mkdir`
    /// (docs/contracts.md "Workspace file API"): toJson() plus `"path"` (@p path, the
    /// workspace-relative path, "" for the root; `pathBase64` when not UTF-8) and, for symlinks,
    /// `"linkTarget"` (the same text as `target`, never followed).
    QJsonObject toEntryJson(const QByteArray& path) const;
};

} // namespace runbox::workspace
