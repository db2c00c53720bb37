#pragma once

#include <QByteArray>
#include <QCoreApplication>
#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace runbox::console {

/// One entry of a workspace directory listing (`GET /v1/workspaces/{id}/files/{dir}`) or the
/// answer of `?stat=true` (docs/contracts.md "Workspace file API"), read tolerantly: a missing or
/// mistyped field keeps its "unknown" value. A link is the link itself (lstat): its target is
/// text to show, never a path the console follows. Names that are not UTF-8 keep their raw bytes
/// (`nameBase64`), so a later request names the very entry that was listed.
struct FileEntry {
    Q_DECLARE_TR_FUNCTIONS(runbox::console::FileEntry)

public:
    enum class Type { File, Directory, Symlink, Other, Unknown };

    QString name;         ///< for display (lossy when the bytes are not UTF-8)
    QByteArray nameBytes; ///< the exact name: from `nameBase64` when given, else UTF-8 of name
    QString path;         ///< `stat` answers only: the workspace-relative path ("" = the root)
    Type type = Type::Unknown;
    qint64 size = -1;           ///< bytes; -1 unknown
    qint64 allocatedBytes = -1; ///< bytes on disk; -1 unknown
    int mode = -1;              ///< permission bits (from the octal text "0755"); -1 unknown
    QDateTime mtime;            ///< UTC; invalid when unknown
    QString linkTarget;         ///< links only: the target text as stored (never followed)

    static FileEntry fromJson(const QJsonObject& o);
    bool isDirectory() const { return type == Type::Directory; }
    bool isLink() const { return type == Type::Symlink; }
    /// Translated type label ("File", "Folder", "Link", "Other").
    static QString typeLabel(Type type);
    /// "rwxr-xr-x" for mode 0755; "" when unknown.
    QString permissionsText() const;
};

/// One page of a directory listing: `{"path","entries":[…],"total","offset","limit",
/// "nextOffset": n | null}`, entries sorted bytewise by name by the agent.
struct DirectoryPage {
    QString path;
    QList<FileEntry> entries; ///< entries without a name are skipped
    qint64 total = -1;        ///< entries in the whole directory; -1 unknown
    qint64 offset = 0;
    qint64 limit = -1;
    qint64 nextOffset = -1; ///< -1 when this is the last page (or the agent did not say)

    static DirectoryPage fromJson(const QJsonObject& answer);
    bool hasMore() const { return nextOffset > offset; }
};

} // namespace runbox::console
