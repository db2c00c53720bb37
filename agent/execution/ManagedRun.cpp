#include "agent/execution/ManagedRun.h"

#include "agent/execution/WorkspaceChanges.h"
#include "agent/execution/WorkspaceQuotaWatcher.h"
#include "agent/store/ExecutionRepository.h"
#include "agent/store/LogStore.h"

#include <QDateTime>
#include <QJsonArray>
#include <QPointer>

#include <csignal>
#include <cstring>

namespace runbox::execution {

int exitSignalNumber(const QString& signalName) {
    for (int s = 1; s < NSIG; ++s) {
        const char* abbrev = sigabbrev_np(s);
        if (abbrev && signalName == QLatin1String("SIG") + QLatin1String(abbrev))
            return s;
    }
    return 0;
}

static QJsonObject mapToJson(const QMap<QString, QString>& map) {
    QJsonObject o;
    for (auto it = map.begin(); it != map.end(); ++it)
        o.insert(it.key(), it.value());
    return o;
}

ManagedRun::ManagedRun(Context context, QString executionId, ExecRequest request,
                       QString workspaceId, std::shared_ptr<const workspace::WorkspaceFs> fs,
                       QString workspaceDir, std::optional<uid_t> workspaceUid,
                       PermissionEpoch epoch, qint64 maxWorkspaceBytes, QObject* parent)
    : QObject(parent), m_ctx(context), m_id(std::move(executionId)), m_request(std::move(request)),
      m_workspaceId(std::move(workspaceId)), m_fs(std::move(fs)),
      m_workspaceDir(std::move(workspaceDir)), m_workspaceUid(workspaceUid),
      m_epoch(std::move(epoch)), m_maxWorkspaceBytes(maxWorkspaceBytes) {
    m_logOpen = true; // created at submission, so followers can attach while it is queued
}

ManagedRun::~ManagedRun() {
    if (m_planning)
        m_ctx.planner->abandon(m_id);
    if (m_plan)
        m_plan->release();
}

void ManagedRun::start() {
    if (m_done)
        return; // stopped before it started
    m_watcher = new WorkspaceQuotaWatcher(m_fs, m_maxWorkspaceBytes, this);
    qint64 used = 0;
    if (m_watcher->overLimit(&used))
        return fail(QStringLiteral("quota_exceeded"),
                    QStringLiteral("the workspace uses %1 bytes, above maxWorkspaceBytes %2")
                        .arg(used)
                        .arg(m_maxWorkspaceBytes));
    if (m_ctx.backends)
        return launchBackend();
    m_planning = true;
    QPointer<ManagedRun> self(this);
    m_ctx.planner->plan(
        LaunchContext{m_request, m_id, m_workspaceId, m_workspaceDir, m_epoch, m_workspaceUid},
        [self](std::optional<ApiError> err, std::shared_ptr<LaunchPlan> plan) {
            if (!self)
                return;
            self->m_planning = false;
            self->m_plan = plan;
            if (err)
                return self->fail(QStringLiteral("setup_failed"), err->message);
            self->launch();
        });
}

void ManagedRun::launch() {
    const QJsonObject provenance{{"env", mapToJson(m_plan->launch.sandboxEnvironment)},
                                 {"cwd", m_plan->launch.sandboxCwd},
                                 {"argv", QJsonArray::fromStringList(m_plan->launch.command)},
                                 {"kind", m_request.kind}};
    if (auto err = m_ctx.repository->markRunning(m_id, 0, provenance))
        return fail(QStringLiteral("setup_failed"), err->message);

    ExecutionRunner::Options opts;
    opts.executionId = m_id;
    opts.workspaceId = m_workspaceId;
    opts.timeoutMs = m_request.timeoutMs;
    opts.maxOutputBytes = 0; // the log's retention bounds what is kept; a managed run is not cut
    opts.setupTimeoutMs = 10000;
    opts.maxProcesses = m_ctx.host->maxProcesses;
    opts.guardPath = m_ctx.host->guardPath;
    opts.stdinData = m_request.stdinData;
    opts.outputEvents = false; // the log is the record; followers frame it themselves
    trackWorkspaceChanges(&opts, m_fs);
    m_runner = new ExecutionRunner(m_plan->launch, opts, this);
    connectBackend();
}

void ManagedRun::launchBackend() {
    BackendLaunch launch;
    launch.executionId = m_id;
    launch.workspaceId = m_workspaceId;
    launch.request = &m_request;
    launch.fs = m_fs;
    QJsonObject provenance;
    ApiError error;
    ExecutionBackend* backend = m_ctx.backends->createBackend(launch, &provenance, &error, this);
    if (!backend)
        return fail(QStringLiteral("setup_failed"), error.message);
    provenance.insert(QStringLiteral("kind"), m_request.kind);
    if (auto err = m_ctx.repository->markRunning(m_id, 0, provenance)) {
        delete backend;
        return fail(QStringLiteral("setup_failed"), err->message);
    }
    m_runner = backend;
    connectBackend();
}

void ManagedRun::connectBackend() {
    connect(m_runner, &ExecutionBackend::output, this,
            [this](OutputStream stream, const QByteArray& bytes) {
                m_ctx.logs->append(m_id,
                                   stream == OutputStream::Stdout ? store::LogStream::Stdout
                                                                  : store::LogStream::Stderr,
                                   bytes);
            });
    connect(m_runner, &ExecutionBackend::finished, this, &ManagedRun::onFinished);
    connect(m_watcher, &WorkspaceQuotaWatcher::exceeded, this, [this](qint64 used, qint64 limit) {
        stop(QStringLiteral("quota_exceeded"),
             QStringLiteral("the workspace grew to %1 bytes, above maxWorkspaceBytes %2")
                 .arg(used)
                 .arg(limit));
    });
    m_runner->start();
    m_watcher->start();
}

void ManagedRun::stop(const QString& status, const QString& reason) {
    if (m_runner) {
        m_runner->stop(status, reason);
    } else if (m_planning) {
        m_planning = false;
        m_ctx.planner->abandon(m_id);
        fail(status, reason);
    } else if (!m_done) {
        fail(status, reason); // not started yet
    }
}

void ManagedRun::fail(const QString& status, const QString& reason) {
    ExecutionResult r;
    r.status = status;
    r.reason = reason;
    record(r);
}

void ManagedRun::onFinished(const ExecutionResult& result) {
    if (m_watcher)
        m_watcher->stop();
    ExecutionResult r = result;
    qint64 used = 0;
    if (r.status == QLatin1String("completed") && m_watcher && m_watcher->overLimit(&used)) {
        r.status = QStringLiteral("quota_exceeded");
        r.reason = QStringLiteral("the workspace ended at %1 bytes, above maxWorkspaceBytes %2")
                       .arg(used)
                       .arg(m_maxWorkspaceBytes);
    }
    record(r);
}

void ManagedRun::record(const ExecutionResult& r) {
    if (m_done)
        return;
    m_done = true;
    // The sandbox is gone: release what its launch acquired first, so that what the releases
    // report (the egress gateway's last decisions) is recorded before the record is final.
    if (m_plan)
        m_plan->release();
    if (m_logOpen)
        m_ctx.logs->finish(m_id);
    store::ExecutionOutcome outcome;
    outcome.state =
        store::executionStateFromString(r.status).value_or(store::ExecutionState::Failed);
    if (r.exitCode >= 0)
        outcome.exitCode = r.exitCode;
    if (!r.signal.isEmpty())
        outcome.signal = exitSignalNumber(r.signal);
    if (m_runner)
        outcome.durationMs = r.durationMs;
    outcome.statusReason = r.reason;
    outcome.createdFiles = r.changes.created;
    outcome.modifiedFiles = r.changes.modified;
    outcome.deletedFiles = r.changes.deleted;
    store::LogInfo info;
    if (m_logOpen && !m_ctx.logs->info(m_id, &info)) {
        outcome.logBytes.stdoutBytes = info.stdoutBytes;
        outcome.logBytes.stderrBytes = info.stderrBytes;
        outcome.logBytes.droppedBytes = info.droppedBytes;
    }
    m_ctx.repository->finish(m_id, outcome);
    Q_EMIT done(m_id);
}

} // namespace runbox::execution
