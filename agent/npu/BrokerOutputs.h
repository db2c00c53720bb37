#pragma once

#include "agent/npu/BrokerJobStore.h"
#include "agent/workspace/WorkspaceSnapshot.h"

#include <QByteArray>

#include <optional>

namespace runbox::workspace {
class WorkspaceFs;
}

namespace runbox::npu {

/// The outputs of a broker job (docs/npu.md "Host broker", `GET /v1/npu/jobs/{id}/result`):
/// the regular files it created or modified in its workspace, found by comparing a
/// WorkspaceSnapshot taken right before the job started with one taken once it ended, each
/// read back through the workspace file layer (WorkspaceFs::openForRead: no link followed) and
/// hashed with SHA-256 (QCryptographicHash) when the job ends, so later changes to the workspace
/// do not change the recorded result. Both calls block (tree walks, file reads): run them off
/// the event loop.
class BrokerOutputs final {
public:
    /// At most this many outputs are hashed (the first in path order), like the change lists.
    static constexpr qsizetype kMaxOutputs = workspace::WorkspaceSnapshot::kDefaultMaxListed;

    /// The picture of the workspace before the job; nothing when it cannot be taken.
    static std::optional<workspace::WorkspaceSnapshot> before(const workspace::WorkspaceFs& fs);
    /// The changes since @p before and the hashed outputs. Without @p before (or when the
    /// workspace cannot be walked) everything is empty.
    static BrokerJobFiles after(const workspace::WorkspaceFs& fs,
                                const std::optional<workspace::WorkspaceSnapshot>& before);
    /// Size and SHA-256 of the regular file @p path (workspace-relative); nothing when it is
    /// gone, not a regular file, or reached through a link.
    static std::optional<store::ExecutionOutput> hash(const workspace::WorkspaceFs& fs,
                                                      const QByteArray& path);
};

} // namespace runbox::npu
