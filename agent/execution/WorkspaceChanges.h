#pragma once

#include "agent/execution/ExecutionRunner.h"

#include <memory>

namespace runbox::workspace {
class WorkspaceFs;
}

namespace runbox::execution {

/// Fills @p options' snapshotBefore/changesAfter so that the exit event lists the files the
/// execution created, modified and deleted under @p fs (WorkspaceSnapshot before and after).
void trackWorkspaceChanges(ExecutionRunner::Options* options,
                           std::shared_ptr<const workspace::WorkspaceFs> fs);

} // namespace runbox::execution
