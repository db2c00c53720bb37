#pragma once

#include <QList>
#include <QString>

#include <optional>

namespace runbox::store {

/// The life of an execution (docs/contracts.md "Workspaces and executions"):
/// `queued → running → completed | failed | timed_out | cancelled | output_limited |
///  quota_exceeded | memory_exceeded | setup_failed | lost`.
enum class ExecutionState {
    Queued,
    Running,
    Completed,     ///< exited with status 0
    Failed,        ///< exited non-zero or was killed by a signal it did not ask for
    TimedOut,      ///< killed at executionTimeoutMs
    Cancelled,     ///< cancelled by a client (a queued one never starts)
    OutputLimited, ///< stopped for producing too much output
    QuotaExceeded, ///< the workspace grew past maxWorkspaceBytes (before, during or after)
    /// The process tree used more than maxMemoryBytes (its tmpfs mounts included; docs/bounds.md)
    MemoryExceeded,
    SetupFailed, ///< the sandbox could not be built: never the user's exit code
    Lost,        ///< the agent stopped while it was queued or running; never re-run
};

/// The wire name, e.g. "timed_out".
QString toString(ExecutionState state);
/// Parses a wire name; std::nullopt for anything else (case-sensitive).
std::optional<ExecutionState> executionStateFromString(const QString& name);
/// Every state, in declaration order.
QList<ExecutionState> allExecutionStates();

/// Whether @p state is final (everything but queued and running).
bool isTerminal(ExecutionState state);

/// The legal transitions:
/// - queued  → running, cancelled, setup_failed, quota_exceeded, lost
///   (a queued execution may end without ever running: cancelled before it started, a sandbox
///   that could not be prepared, a workspace already over quota, an agent restart);
/// - running → any terminal state;
/// - a terminal state never changes.
bool isLegalTransition(ExecutionState from, ExecutionState to);

/// The states from which @p to may be reached (for a guarded UPDATE … WHERE state IN (…)).
QList<ExecutionState> legalPredecessors(ExecutionState to);

} // namespace runbox::store
