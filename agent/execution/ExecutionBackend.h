#pragma once

#include "agent/execution/OutputFramer.h"
#include "shared/ApiError.h"

#include <QByteArray>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>

namespace runbox::workspace {
class WorkspaceFs;
}

namespace runbox::execution {

struct ExecRequest;

/// Files an execution created, modified and deleted in its workspace (workspace-relative).
struct FileChanges {
    QStringList created, modified, deleted;
    bool truncated = false;
};

/// How one execution ended (the states of docs/contracts.md "Workspaces and executions").
struct ExecutionResult {
    QString status;    ///< completed | failed | timed_out | cancelled | output_limited |
                       ///< quota_exceeded | setup_failed
    int exitCode = -1; ///< the command's exit code (128+N when a signal ended it inside)
    QString signal;    ///< e.g. "SIGKILL" when the agent killed the sandbox, else empty
    qint64 durationMs = 0;
    QString reason; ///< human text for everything but completed/failed
    FileChanges changes;
    qint64 stdoutBytes = 0, stderrBytes = 0;

    /// The `exit` event: {"type":"exit","status","exitCode","signal","durationMs","reason",
    /// "createdFiles","modifiedFiles","deletedFiles","filesTruncated","stdoutBytes","stderrBytes"}.
    QJsonObject toEvent() const;
};

/// What runs one execution to its end, whatever isolates it: a bwrap sandbox (ExecutionRunner)
/// or a light workspace's supervisor (api::LightRun). ManagedRun drives either through this
/// interface, so a managed execution has the same record, log, cancel and timeout semantics on
/// both tiers.
///
/// Contract: start() once; output() carries the raw bytes in arrival order (what the execution
/// log stores); finished() comes exactly once, after the last output() — from within start()
/// when nothing could be started (setup_failed) — once the command has ended (bwrap: its whole
/// PID namespace; light: its leader, and its tree when it was killed; what it left running in
/// the background belongs to the workspace); stop() kills its tree, and the result then has
/// @p status (cancelled, quota_exceeded…) unless it had already ended. ExecutionRunner's output()
/// bytes are emitted before the frames made of them, and bytes past the output limit are not
/// emitted.
class ExecutionBackend : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecutionBackend)
public:
    using QObject::QObject;
    ~ExecutionBackend() override = default;

    virtual void start() = 0;
    virtual void stop(const QString& status, const QString& reason) = 0;

Q_SIGNALS:
    void output(runbox::execution::OutputStream stream, const QByteArray& bytes);
    void finished(const runbox::execution::ExecutionResult& result);
};

/// One managed execution to be run outside bwrap (in a light workspace).
struct BackendLaunch {
    QString executionId;
    QString workspaceId;
    const ExecRequest* request = nullptr;
    std::shared_ptr<const workspace::WorkspaceFs> fs; ///< for createdFiles & co.
};

/// Makes the backends of managed executions in workspaces that bwrap does not serve (the light
/// tier registers one with ExecutionManager::setLightBackends).
class ExecutionBackendFactory {
public:
    virtual ~ExecutionBackendFactory() = default;
    /// A backend (not started) for @p launch, with @p provenance set to what the record keeps
    /// as the exact launch (`{"env","cwd","argv",…}`); or nullptr with @p error (404 the
    /// workspace is gone, 409 it is being deleted, 503 the tier is unavailable).
    virtual ExecutionBackend* createBackend(const BackendLaunch& launch, QJsonObject* provenance,
                                            ApiError* error, QObject* parent) = 0;
};

} // namespace runbox::execution
