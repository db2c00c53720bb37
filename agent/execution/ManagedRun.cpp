#include "agent/execution/ManagedRun.h"

#include "agent/execution/WorkspaceQuotaWatcher.h"
#include "agent/store/ExecutionRepository.h"
#include "agent/store/LogStore.h"

#include <QDateTime>
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

ManagedRun::ManagedRun(Context context, TierLaunch launch, qint64 maxWorkspaceBytes,
                       QObject* parent)
    : QObject(parent), m_ctx(context), m_launch(std::move(launch)),
      m_maxWorkspaceBytes(maxWorkspaceBytes) {
    m_launch.managed = true;
    m_logOpen = true; // created at submission, so followers can attach while it is queued
}

ManagedRun::~ManagedRun() {
    if (m_preparing)
        m_ctx.tier->abandon(m_launch.executionId);
}

void ManagedRun::start() {
    if (m_done)
        return; // stopped before it started
    // Over quota while it waited in the queue (the live watch is BoundedBackend's).
    WorkspaceQuotaWatcher quota(m_launch.fs, m_maxWorkspaceBytes);
    qint64 used = 0;
    if (quota.full(&used))
        return fail(QStringLiteral("quota_exceeded"),
                    QStringLiteral("the workspace uses %1 bytes, above maxWorkspaceBytes %2")
                        .arg(used)
                        .arg(m_maxWorkspaceBytes));
    m_preparing = true;
    QPointer<ManagedRun> self(this);
    m_ctx.tier->createBackend(m_launch, this, [self](TierBackend made) {
        if (self)
            self->onBackend(std::move(made));
        else
            delete made.backend;
    });
}

void ManagedRun::onBackend(TierBackend made) {
    if (!m_preparing) { // stopped meanwhile
        delete made.backend;
        return;
    }
    m_preparing = false;
    if (!made.backend)
        return fail(QStringLiteral("setup_failed"),
                    made.error ? made.error->message : QStringLiteral("no backend"));
    made.provenance.insert(QStringLiteral("kind"), m_launch.request.kind);
    if (auto err = m_ctx.repository->markRunning(m_launch.executionId, 0, made.provenance)) {
        delete made.backend;
        return fail(QStringLiteral("setup_failed"), err->message);
    }
    m_runner = made.backend;
    const QString id = m_launch.executionId;
    connect(m_runner, &ExecutionBackend::output, this,
            [this, id](OutputStream stream, const QByteArray& bytes) {
                m_ctx.logs->append(id,
                                   stream == OutputStream::Stdout ? store::LogStream::Stdout
                                                                  : store::LogStream::Stderr,
                                   bytes);
            });
    connect(m_runner, &ExecutionBackend::finished, this, &ManagedRun::onFinished);
    m_runner->start();
}

void ManagedRun::stop(const QString& status, const QString& reason) {
    if (m_runner) {
        m_runner->stop(status, reason);
    } else if (m_preparing) {
        m_preparing = false;
        m_ctx.tier->abandon(m_launch.executionId);
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
    record(result);
}

void ManagedRun::record(const ExecutionResult& r) {
    if (m_done)
        return;
    m_done = true;
    // The backend released what its launch acquired before its finished() (IsolationTier), so
    // what the releases report (the egress gateway's last decisions) is recorded first.
    if (m_logOpen)
        m_ctx.logs->finish(m_launch.executionId);
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
    outcome.usage = r.usage;
    store::LogInfo info;
    if (m_logOpen && !m_ctx.logs->info(m_launch.executionId, &info)) {
        outcome.logBytes.stdoutBytes = info.stdoutBytes;
        outcome.logBytes.stderrBytes = info.stderrBytes;
        outcome.logBytes.droppedBytes = info.droppedBytes;
    }
    m_ctx.repository->finish(m_launch.executionId, outcome);
    Q_EMIT done(m_launch.executionId, r, m_runner != nullptr);
}

} // namespace runbox::execution
