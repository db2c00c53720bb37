#pragma once

#include "agent/execution/ExecutionBackend.h"

#include <functional>
#include <memory>

namespace runbox::workspace {
class WorkspaceFs;
}

namespace runbox::execution {

/// What a backend calls to report the files an execution changed: before it starts and after it
/// ends. Either may be empty (no tracking, or skipped).
struct ChangeTracking {
    std::function<void()> snapshotBefore;
    std::function<FileChanges()> changesAfter;
};

/// Fills @p tracking so that the exit event lists the files the execution created, modified and
/// deleted under @p fs (WorkspaceSnapshot before and after).
void trackWorkspaceChanges(ChangeTracking* tracking,
                           std::shared_ptr<const workspace::WorkspaceFs> fs);

} // namespace runbox::execution
