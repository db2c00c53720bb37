#pragma once

#include "agent/execution/ExecutionBackend.h"
#include "agent/light/LightExecution.h"

namespace runbox::light {

/// The result of a light exec (sync or managed), from its status (the states of
/// docs/contracts.md "Workspaces and executions"):
/// - the sandbox could not be built → setup_failed;
/// - its timeout fired → timed_out (SIGKILL), reason naming @p timeoutMs;
/// - the agent stopped it (@p stopStatus: cancelled, output_limited, quota_exceeded…) → that;
/// - cancelled otherwise → cancelled ("the workspace was deleted");
/// - exited → completed / failed with the exit code;
/// - a signal → failed with 128+N and the signal's name;
/// - could not start → failed with 127 (ENOENT) or 126, as a shell reports it;
/// - anything else → lost.
/// Output counts and file changes are left to the caller.
execution::ExecutionResult lightResultOf(const LightExitStatus& status, const QString& stopStatus,
                                         const QString& stopReason, qint64 timeoutMs);

} // namespace runbox::light
