#include "agent/execution/WorkspaceChanges.h"

#include "agent/workspace/WorkspaceFs.h"
#include "agent/workspace/WorkspaceSnapshot.h"

#include <optional>

namespace runbox::execution {

namespace {
QStringList toStrings(const QList<QByteArray>& paths) {
    QStringList out;
    for (const QByteArray& p : paths)
        out << QString::fromUtf8(p);
    return out;
}
} // namespace

void trackWorkspaceChanges(ChangeTracking* options,
                           std::shared_ptr<const workspace::WorkspaceFs> fs) {
    auto before = std::make_shared<std::optional<workspace::WorkspaceSnapshot>>();
    options->snapshotBefore = [fs, before] {
        auto snap = workspace::WorkspaceSnapshot::capture(fs->rootFd());
        if (snap.ok())
            *before = std::move(snap.value());
    };
    options->changesAfter = [fs, before] {
        FileChanges changes;
        auto after = workspace::WorkspaceSnapshot::capture(fs->rootFd());
        if (!*before || !after.ok()) {
            changes.truncated = true;
            return changes;
        }
        const workspace::WorkspaceDiff diff =
            workspace::WorkspaceSnapshot::diff(**before, after.value());
        changes.created = toStrings(diff.createdFiles);
        changes.modified = toStrings(diff.modifiedFiles);
        changes.deleted = toStrings(diff.deletedFiles);
        changes.truncated = diff.truncated;
        return changes;
    };
}

} // namespace runbox::execution
