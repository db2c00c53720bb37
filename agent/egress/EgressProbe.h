#pragma once

#include <QString>

#include <functional>

namespace runbox::execution {
class LaunchPlanner;
struct SandboxHost;
} // namespace runbox::execution

namespace runbox::egress {

/// The start-up check behind `/v1/health` `egress.available`: one real launch through the
/// agent's LaunchPlanner (so through EgressStage) under a domain-allowlist policy, running
/// `true` under runbox-egress-bridge with the Network seccomp profile. It works when bwrap could
/// bind the gateway socket and the bridge, the bridge came up on the sandbox's loopback (`ready`
/// on its status fd) and the command exited 0.
class EgressProbe final {
public:
    /// Runs the probe; @p done gets (works, reason) once, on the calling thread's event loop.
    /// @p scratchDir is created and bound as the probe's /workspace.
    static void run(const execution::LaunchPlanner& planner, const execution::SandboxHost& host,
                    const QString& scratchDir,
                    std::function<void(bool works, const QString& reason)> done);
    /// run() and wait for it in a local event loop (start-up, before the agent serves), at most
    /// @p timeoutMs.
    static void runAndWait(const execution::LaunchPlanner& planner,
                           const execution::SandboxHost& host, const QString& scratchDir,
                           int timeoutMs, bool* works, QString* reason);
};

} // namespace runbox::egress
