#pragma once

#include <QString>

namespace runbox::execution {

/// The start-up sweep (docs/managed.md "No sandbox outlives the agent"): a sandbox must not outlive
/// the agent that started it. bwrap runs with --die-with-parent, so a dead agent's sandboxes
/// normally die with it; this catches what could not. A leftover is a process of this user whose
/// executable is one of @p launchers (bwrap, runbox-sandbox-guard) and whose cwd is @p stateDir
/// (every launch sets it): its process group is killed with SIGKILL.
class SandboxSweep final {
public:
    /// Returns how many process groups were killed. Empty entries of @p launchers are ignored.
    static int killLeftovers(const QString& stateDir, const QStringList& launchers);
};

} // namespace runbox::execution
