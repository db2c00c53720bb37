#pragma once

#include "agent/sandbox/SandboxUser.h"

#include "agent/npu/BrokerInput.h"

#include <QByteArray>
#include <QDateTime>
#include <QDeadlineTimer>
#include <QList>
#include <QObject>
#include <QProcessEnvironment>
#include <QStringList>

#include <optional>
#include <vector>

class QProcess;
class QTimer;

namespace runbox::npu {

/// One host broker job: a fixed argv started with no shell, in the host namespace, as the
/// leader of its own session and process group. Its pinned inputs (BrokerInput) are the only
/// descriptors above stderr it inherits. The job keeps no output: each piece is handed on as it
/// arrives (output()), and BrokerJobRunner appends it to the job's execution log in the LogStore
/// (docs/npu.md "Host broker": a broker job is an execution of kind `broker`).
///
/// Lifecycle: queued → running → completed | failed | cancelled | timed_out | setup_failed.
/// Cancel and timeout send SIGTERM to the whole group, then SIGKILL after the grace period;
/// when the leader ends on its own, the group is killed too, so the job's state is final only
/// once nothing it started inside its group is left. A descendant that calls setsid() itself
/// leaves the group and is out of reach (no cgroup here).
///
/// Output: chunks are emitted in arrival order (the log gives them one logical numbering across
/// both streams). Past maxOutputBytes (both streams together) further output is dropped,
/// counted in droppedBytes() and `truncated` is set; the job keeps running.
class BrokerJob final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BrokerJob)
public:
    enum class State { Queued, Running, Completed, Failed, Cancelled, TimedOut, SetupFailed };
    enum class Stream { Stdout, Stderr };
    struct Spec {
        QString id;
        QString workloadId;
        QString workspace; ///< canonical; the job's cwd
        QStringList argv;  ///< program first
        QProcessEnvironment environment;
        QList<int> chips;       ///< host logic ids (empty = the host queue)
        qint64 timeoutMs = 0;   ///< 0 = none
        int killGraceMs = 2000; ///< SIGTERM → SIGKILL
        qint64 maxOutputBytes = 64LL * 1024 * 1024;
        /// Pinned `${input:…}` descriptors (argv names them `/proc/self/fd/N`): the job
        /// inherits each under the same number; the agent's copies are closed once the job
        /// has started or ended.
        std::vector<BrokerInput> inputs;
        /// The host identity the job runs as (a privileged agent: the workspace's uid, the
        /// chips' device groups; capabilities cleared); unset = as the agent.
        std::optional<sandbox::SandboxUser> user;
    };

    explicit BrokerJob(Spec spec, QObject* parent = nullptr);
    ~BrokerJob() override;

    /// Starts the process (queued → running). A program that cannot start → setup_failed.
    void start();
    /// Cancels: queued → cancelled at once; running → SIGTERM to the group, SIGKILL after the
    /// grace period, cancelled once the leader is gone. No-op when already final.
    void cancel();
    /// SIGKILL to the group now (agent shutdown); the state becomes cancelled.
    void killNow();

    const Spec& spec() const { return m_spec; }
    QString id() const { return m_spec.id; }
    State state() const { return m_state; }
    bool isFinal() const;
    static QString stateName(State state);
    std::optional<int> exitCode() const { return m_exitCode; }
    std::optional<int> signal() const { return m_signal; }
    QString message() const { return m_message; } ///< why it failed / was cancelled
    qint64 pid() const { return m_pid; }          ///< = its process group id; 0 before start
    QDateTime createdAt() const { return m_createdAt; }
    QDateTime startedAt() const { return m_startedAt; }
    QDateTime finishedAt() const { return m_finishedAt; }
    bool truncated() const { return m_truncated; }

    /// Bytes of @p stream handed on by output() so far (dropped bytes excluded).
    qint64 streamSize(Stream stream) const;
    /// Bytes dropped past maxOutputBytes (0 unless truncated()).
    qint64 droppedBytes() const { return m_dropped; }

Q_SIGNALS:
    void started();
    /// A piece of output of @p stream, in arrival order (never empty; within maxOutputBytes).
    void output(runbox::npu::BrokerJob::Stream stream, const QByteArray& data);
    /// Emitted once, when the state becomes final.
    void finished();

private:
    void readChannel(Stream stream);
    void onLeaderFinished(int exitCode, int exitStatus);
    void terminateGroup(const QString& why, State finalState);
    void onGraceExpired();
    /// SIGKILL to the group, then finish once no member is left running (polled, 5 s at most).
    void endGroupThenFinish(State state, const QString& message);
    void finish(State state, const QString& message);
    /// Closes the agent's copies of the pinned inputs (the started job holds its own).
    void releaseInputs();
    /// Whether a process of the job's group still runs (zombies do not count).
    bool groupAlive() const;

    Spec m_spec;
    State m_state = State::Queued;
    QProcess* m_process = nullptr;
    QTimer* m_timeout = nullptr;
    QTimer* m_grace = nullptr;
    QTimer* m_reap = nullptr;
    QDeadlineTimer m_reapDeadline;
    qint64 m_pid = 0;
    bool m_leaderDone = false;
    std::optional<State> m_pendingState; ///< cancel/timeout requested
    QString m_pendingMessage;
    std::optional<int> m_exitCode;
    std::optional<int> m_signal;
    QString m_message;
    QDateTime m_createdAt;
    QDateTime m_startedAt;
    QDateTime m_finishedAt;
    qint64 m_sizes[2] = {0, 0};
    qint64 m_dropped = 0;
    qint64 m_kept = 0;
    bool m_truncated = false;
};

} // namespace runbox::npu
