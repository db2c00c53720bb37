#pragma once

#include "agent/workspace/WorkspaceFileInfo.h"
#include "agent/workspace/WorkspaceResult.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>

#include <vector>

namespace runbox::workspace {

/// What changed in a workspace between two snapshots (an execution's provenance:
/// `createdFiles`, `modifiedFiles`, `deletedFiles`, docs/contracts.md "Event stream"). Only
/// non-directories are reported (regular files, symlinks, FIFOs…); paths are workspace-relative,
/// sorted bytewise.
struct WorkspaceDiff {
    QList<QByteArray> createdFiles;
    QList<QByteArray> modifiedFiles;
    QList<QByteArray> deletedFiles;
    qint64 createdCount = 0; ///< totals before capping
    qint64 modifiedCount = 0;
    qint64 deletedCount = 0;
    /// A list was capped, or a snapshot was incomplete (so the lists may miss changes).
    bool truncated = false;

    /// `{"createdFiles": [str…], "modifiedFiles": [str…], "deletedFiles": [str…],
    ///   "createdCount": n, "modifiedCount": n, "deletedCount": n, "truncated": bool}`.
    QJsonObject toJson() const;
};

/// A cheap picture of a workspace tree (path → type, size, mtime in ns, inode), taken before
/// and after an execution to tell which files it created, modified or deleted. Walks with
/// WorkspaceTreeWalker (descriptors only, links never followed). A file counts as modified
/// when its size, mtime, inode (replaced by rename) or type changed. Memory: about
/// 60 bytes + path length per entry; capture stops (complete() false) after maxEntries, or once
/// the paths kept reach maxPathBytes: a chain of N nested directories holds N paths of up to
/// 2N bytes, so without that bound one tenant's deep chain (200,000 levels: ~40 GB) took the
/// agent and the host out of memory. Nor does it see below WorkspaceTreeWalker::maxDepth()
/// (complete() false).
class WorkspaceSnapshot final {
public:
    static constexpr qint64 kDefaultMaxEntries = 1000000;
    static constexpr qsizetype kDefaultMaxListed = 1000;
    static constexpr qint64 kDefaultMaxPathBytes = 64LL << 20;

    struct Entry {
        QByteArray path;
        FileType type = FileType::Other;
        qint64 size = 0;
        qint64 mtimeNs = 0;
        quint64 ino = 0;
    };

    /// Captures the tree under the directory descriptor @p rootFd.
    static Result<WorkspaceSnapshot> capture(int rootFd, qint64 maxEntries = kDefaultMaxEntries,
                                             qint64 maxPathBytes = kDefaultMaxPathBytes);

    /// Compares two snapshots of the same workspace; each list holds at most @p maxListed
    /// paths (the first ones in byte order), counts hold the totals.
    static WorkspaceDiff diff(const WorkspaceSnapshot& before, const WorkspaceSnapshot& after,
                              qsizetype maxListed = kDefaultMaxListed);

    /// All entries (directories included), sorted bytewise by path.
    const std::vector<Entry>& entries() const { return m_entries; }
    bool complete() const { return m_complete; }

private:
    std::vector<Entry> m_entries;
    bool m_complete = true;
};

} // namespace runbox::workspace
