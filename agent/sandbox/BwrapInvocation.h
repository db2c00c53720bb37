#pragma once

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include "agent/sandbox/SandboxUser.h"

#include <optional>

namespace runbox::sandbox {

/// Runs bwrap once for the start-up checks (`--help`, `--version`, the probe launches), with
/// stdin from /dev/null, the fixed minimal environment and a wall-clock timeout. Not for
/// executions: those go through the launcher and the process runner.
class BwrapInvocation final {
public:
    /// Outcome of one run. stderr is kept (bounded), stdout only when asked for.
    struct Result {
        bool started = false;  ///< the program could be executed at all
        bool timedOut = false; ///< killed after the timeout
        bool crashed = false;  ///< ended by a signal
        int exitCode = -1;     ///< valid when started, not timed out and not crashed
        QByteArray standardOutput;
        QByteArray standardError;
        QString errorString; ///< why it failed to start / what ended it, for operators

        /// True when it exited normally with status 0.
        bool succeeded() const { return started && !timedOut && !crashed && exitCode == 0; }
        /// The last non-empty stderr line (trimmed, at most 500 characters); when stderr is
        /// empty, a description of how the run failed ("exited with status 1", "timed out…").
        QString failureDetail() const;
    };

    /// The environment bwrap itself runs with: exactly PATH=/usr/bin:/bin and LANG=C.UTF-8,
    /// nothing inherited from the agent.
    static QProcessEnvironment minimalEnvironment();

    /// Runs @p program with @p arguments, waiting at most @p timeoutMs milliseconds; on timeout
    /// the process is killed (SIGKILL). Output beyond 1 MiB per stream is dropped. With
    /// @p user, the program runs as that unprivileged host user (SandboxUser::dropInChild);
    /// without, as the agent with its ambient and inheritable capabilities cleared
    /// (clearInheritedCapabilities). A failed drop makes the child exit 127 before anything runs.
    static Result run(const QString& program, const QStringList& arguments, int timeoutMs,
                      bool keepStandardOutput,
                      const std::optional<SandboxUser>& user = std::nullopt);
};

} // namespace runbox::sandbox
