#pragma once

#include "agent/Error.h"
#include "agent/execution/OutputFramer.h"
#include "agent/store/ExecutionRecord.h"

#include <QByteArray>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QStringList>

namespace runbox::execution {

/// Files an execution created, modified and deleted in its workspace (workspace-relative).
struct FileChanges {
    QStringList created, modified, deleted;
    bool truncated = false;
};

/// How one execution ended (the states of docs/contracts.md "Workspaces and executions").
struct ExecutionResult {
    QString status;    ///< completed | failed | timed_out | cancelled | output_limited |
                       ///< quota_exceeded | memory_exceeded | setup_failed
    int exitCode = -1; ///< the command's exit code (128+N when a signal ended it inside)
    QString signal;    ///< e.g. "SIGKILL" when the agent killed the sandbox, else empty
    qint64 durationMs = 0;
    QString reason; ///< human text for everything but completed/failed
    /// For a setup_failed run, which part of the set-up failed (a bounded label of
    /// `runbox_sandbox_setup_failures_total`, docs/metrics.md): "spawn" (the sandbox process
    /// could not be started), "timeout" (the set-up timeout), "sandbox" (bwrap could not build
    /// it), "helper" (a launch helper inside, e.g. the egress bridge, did not report ready);
    /// empty: not known ("other").
    QString setupFailureCause;
    FileChanges changes;
    qint64 stdoutBytes = 0, stderrBytes = 0;
    /// What it used (docs/bounds.md): the backend fills the CPU it knows, the bounds watcher
    /// the memory and process peaks.
    store::ExecutionUsage usage;

    /// The `exit` event: {"type":"exit","status","exitCode","signal","durationMs","reason",
    /// "createdFiles","modifiedFiles","deletedFiles","filesTruncated","stdoutBytes","stderrBytes",
    /// "usage":{…store::ExecutionUsage}}.
    QJsonObject toEvent() const;
};

/// What runs one execution to its end, whatever isolates it: a bwrap sandbox (ExecutionRunner)
/// or a light workspace's supervisor (LightRun); an IsolationTier makes it. ManagedRun (the
/// record and the log) and ExecutionStream (the sync event stream) drive any of them through
/// this interface, so executions have the same record, log, events, cancel and timeout
/// semantics on every tier.
///
/// Contract: start() once; output() carries the raw bytes in arrival order (what the execution
/// log stores); finished() comes exactly once, after the last output() — from within start()
/// when nothing could be started (setup_failed) — once the command has ended (bwrap: its whole
/// PID namespace; light: its leader, and its tree when it was killed; what it left running in
/// the background belongs to the workspace); stop() kills its tree, and the result then has
/// @p status (cancelled, quota_exceeded…) unless it had already ended. start() on a backend that
/// its tier already launched (light, so that a refusal is answered before a stream begins) only
/// completes it.
class ExecutionBackend : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecutionBackend)
public:
    using QObject::QObject;
    ~ExecutionBackend() override = default;

    virtual void start() = 0;
    virtual void stop(const QString& status, const QString& reason) = 0;
    /// Backpressure: stops reading the command's output while @p paused (the consumer is
    /// behind), resumes when not.
    virtual void setPaused(bool paused) = 0;
    /// The result need not carry file changes (nobody will read them: the client left).
    virtual void skipFileChanges() {}

Q_SIGNALS:
    /// The host pid of the init of the PID namespace the run's processes live in (strong: bwrap's
    /// sandbox child), once known; the bounds watcher counts that namespace's processes.
    void pidNamespaceInitKnown(qint64 pid);
    void output(runbox::execution::OutputStream stream, const QByteArray& bytes);
    void finished(const runbox::execution::ExecutionResult& result);
};

} // namespace runbox::execution
