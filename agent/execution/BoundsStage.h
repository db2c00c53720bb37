#pragma once

#include "agent/execution/LaunchPlanner.h"

namespace runbox::bounds {
class BoundsHost;
}

namespace runbox::execution {

/// The resource bounds of a strong launch (docs/bounds.md), from the execution's permission
/// epoch (`quotas`: maxMemoryBytes, maxProcesses, maxWorkspaceBytes): /tmp and /dev/shm sized at
/// maxMemoryBytes each (the watcher counts what they hold against the same limit), RLIMIT_FSIZE at
/// maxWorkspaceBytes, the workspace's project quota at maxWorkspaceBytes while the execution runs
/// where the host has project quotas (bounds::ProjectQuota::beginRun; back to the standing limit
/// when the plan is released; Unavailable (503) `limit_unenforceable` when it cannot be set), and
/// under a delegated cgroup v2 subtree the execution's own cgroup (memory.max, pids.max, swap 0)
/// that the sandbox joins at spawn. The watcher of the run (BoundedBackend) then takes the cgroup
/// from the BoundsHost. RLIMIT_NPROC stays with the runner (ExecutionRunner::Options::maxProcesses,
/// from the same epoch).
class BoundsStage final : public LaunchStage {
public:
    /// @p host may be null: only the rlimit and tmpfs sizes are set.
    explicit BoundsStage(bounds::BoundsHost* host) : m_host(host) {}
    void prepare(const LaunchContext& context, LaunchPlan* plan,
                 std::function<void(std::optional<Error>)> done) override;

private:
    bounds::BoundsHost* m_host;
};

} // namespace runbox::execution
