#pragma once

#include <QString>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace runbox::light {

class SupervisorChannel;

/// How an exec in a light workspace ended.
struct LightExitStatus {
    enum class Kind {
        Exited,      ///< the command exited; exitCode is set
        Signaled,    ///< the command was killed by `signal` (a timeout or cancel shows SIGKILL)
        SpawnFailed, ///< the command never ran: chdir/execve failed (errorNumber, message)
        SetupFailed, ///< the workspace's sandbox could not be built (message); nothing ran
        Lost,        ///< the result is unknown: the supervisor or tracking process died
    };
    Kind kind = Kind::Lost;
    int exitCode = -1;
    int signal = 0;
    int errorNumber = 0;
    QString message;
    bool timedOut = false;  ///< ended by its executionTimeoutMs
    bool cancelled = false; ///< ended by cancel() or by the workspace's deletion
    qint64 durationMs = 0;  ///< from exec() to the leader's end, wall clock

    /// The execution state name (docs/contracts.md "Workspaces and executions"): completed, failed,
    /// timed_out, cancelled, setup_failed, lost.
    QString stateName() const;
};

/// One command running in a light workspace. Created by LightWorkspaceHost::exec(); thread-safe.
/// Output travels through the descriptors given in the request; the status arrives separately, so
/// a streaming caller waits for both its pipes' EOF and isFinished() before its final event.
class LightExecution final : public std::enable_shared_from_this<LightExecution> {
public:
    using FinishedCallback = std::function<void(const LightExitStatus&)>;

    LightExecution(std::uint64_t id, QString workspaceId);

    std::uint64_t id() const { return m_id; }
    QString workspaceId() const { return m_workspaceId; }
    /// Pid of the command in its workspace's PID namespace (0 until started).
    int pid() const;
    bool isFinished() const;
    /// Blocks up to @p timeoutMs (−1: forever) for the end; true when finished.
    bool waitForFinished(int timeoutMs = -1) const;
    LightExitStatus status() const;
    /// Kills the command's whole tree (SIGKILL to everything below its tracking subreaper, setsid
    /// and double-forked descendants included); the status gets cancelled = true. No-op when done.
    void cancel();
    /// Calls @p callback once with the final status: now (this thread) when already finished,
    /// else on the light event thread. Must not block; may call exec()/cancel(), not remove().
    void onFinished(FinishedCallback callback);

    // Used by the host and the supervisor channel.
    void attach(const std::shared_ptr<SupervisorChannel>& channel);
    void markStarted(int pid);
    void finish(LightExitStatus status);
    void requestKill(bool timedOut);
    /// Flags the exec as cancelled without sending anything (its workspace is being deleted).
    void markCancelled();
    /// Runs @p hook after the end (internal bookkeeping such as dropping the timeout timer).
    void addFinishHook(std::function<void()> hook);

private:
    const std::uint64_t m_id;
    const QString m_workspaceId;
    const std::chrono::steady_clock::time_point m_started;
    mutable std::mutex m_mutex;
    mutable std::condition_variable m_finishedCondition;
    std::weak_ptr<SupervisorChannel> m_channel;
    int m_pid = 0;
    bool m_finished = false;
    bool m_timedOut = false;
    bool m_cancelled = false;
    LightExitStatus m_status;
    FinishedCallback m_callback;
    std::vector<std::function<void()>> m_hooks;
};

} // namespace runbox::light
