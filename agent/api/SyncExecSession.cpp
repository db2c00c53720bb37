#include "agent/api/SyncExecSession.h"

#include "agent/execution/ExecutionManager.h"
#include "agent/execution/ExecutionRunner.h"
#include "agent/execution/WorkspaceChanges.h"
#include "shared/Crypto.h"

#include <QJsonDocument>

namespace runbox::api {

namespace {
constexpr qint64 kPauseAboveBytes = 1 << 20;
constexpr qint64 kResumeBelowBytes = 256 << 10;
} // namespace

SyncExecSession::SyncExecSession(http::HttpExchange* exchange, execution::ExecutionManager* manager,
                                 execution::LaunchContext context,
                                 std::shared_ptr<const workspace::WorkspaceFs> fs,
                                 qint64 setupTimeoutMs, QObject* parent)
    : QObject(parent), m_exchange(exchange), m_manager(manager), m_context(std::move(context)),
      m_fs(std::move(fs)), m_setupTimeoutMs(setupTimeoutMs),
      m_jobId(QStringLiteral("sync:") + m_context.executionId) {
    connect(exchange, &http::HttpExchange::clientGone, this, &SyncExecSession::onClientGone);
    connect(exchange, &QObject::destroyed, this, &SyncExecSession::onClientGone);
}

SyncExecSession::~SyncExecSession() {
    if (m_plan)
        m_plan->release();
}

void SyncExecSession::write(const QJsonObject& event) {
    if (!m_exchange)
        return;
    if (m_phase == Phase::Running && event.value(QLatin1String("type")) == QLatin1String("exit")) {
        m_exitEvent = event; // written by end(), together with the last chunk
        return;
    }
    m_exchange->writeChunk(QJsonDocument(event).toJson(QJsonDocument::Compact) + '\n');
    if (m_runner && m_exchange->pendingBytes() > kPauseAboveBytes)
        m_runner->setPaused(true);
}

void SyncExecSession::start() {
    m_exchange->beginChunked(200, "application/x-ndjson");
    QPointer<SyncExecSession> self(this);
    m_manager->scheduleSync(m_jobId, m_context.workspaceId, [self] {
        if (self)
            self->onAdmitted();
    });
    if (const int position = m_manager->queuePosition(m_jobId); position > 0)
        write({{"type", "queued"},
               {"position", position},
               {"reason", m_manager->workspaceBusy(m_context.workspaceId)
                              ? "another execution holds the workspace"
                              : "the agent is at its concurrency limit"}});
}

void SyncExecSession::onAdmitted() {
    if (m_phase != Phase::Queued)
        return;
    m_phase = Phase::Planning;
    QPointer<SyncExecSession> self(this);
    m_manager->planner().plan(m_context, [self](std::optional<ApiError> err,
                                                std::shared_ptr<execution::LaunchPlan> plan) {
        if (!self || self->m_phase != Phase::Planning)
            return;
        if (err) {
            self->write({{"type", "started"},
                         {"executionId", self->m_context.executionId},
                         {"workspace", self->m_context.workspaceId}});
            execution::ExecutionResult r;
            r.status = QStringLiteral("setup_failed");
            r.reason = err->message;
            self->write(r.toEvent());
            return self->end();
        }
        self->launch(plan);
    });
}

void SyncExecSession::launch(std::shared_ptr<execution::LaunchPlan> plan) {
    m_plan = plan;
    m_phase = Phase::Running;
    execution::ExecutionRunner::Options opts;
    opts.executionId = m_context.executionId;
    opts.workspaceId = m_context.workspaceId;
    opts.timeoutMs = m_context.request.timeoutMs;
    opts.maxOutputBytes = m_context.request.maxOutputBytes;
    opts.setupTimeoutMs = m_setupTimeoutMs;
    opts.maxProcesses = m_manager->host().maxProcesses;
    opts.guardPath = m_manager->host().guardPath;
    opts.stdinData = m_context.request.stdinData;
    execution::trackWorkspaceChanges(&opts, m_fs);
    opts.beforeExitEvent = [plan] { plan->release(); };
    m_runner = new execution::ExecutionRunner(plan->launch, opts, this);
    connect(m_runner, &execution::ExecutionRunner::event, this, &SyncExecSession::write);
    // Features' events of this execution (egress decisions) go into the same stream, up to the
    // exit event (beforeExitEvent flushes the last of them).
    connect(m_manager, &execution::ExecutionManager::executionEvent, this,
            [this](const QString& executionId, const QJsonObject& event) {
                if (m_phase == Phase::Running && executionId == m_context.executionId)
                    write(event);
            });
    if (m_exchange)
        connect(m_exchange, &http::HttpExchange::writable, this, [this] {
            if (m_runner && m_exchange && m_exchange->pendingBytes() < kResumeBelowBytes)
                m_runner->setPaused(false);
        });
    connect(m_runner, &execution::ExecutionRunner::finished, this, [this] { end(); });
    m_runner->start();
}

void SyncExecSession::onClientGone() {
    switch (m_phase) {
    case Phase::Queued:
    case Phase::Planning:
        if (m_phase == Phase::Planning)
            m_manager->planner().abandon(m_context.executionId);
        m_phase = Phase::Done;
        m_manager->releaseSync(m_jobId);
        deleteLater();
        break;
    case Phase::Running:
        m_runner->stop(QStringLiteral("cancelled"), QStringLiteral("the client disconnected"));
        break;
    case Phase::Done:
        break;
    }
}

void SyncExecSession::stop(const QString& reason) {
    if (m_phase == Phase::Running)
        m_runner->stop(QStringLiteral("cancelled"), reason);
    else
        onClientGone();
}

void SyncExecSession::end() {
    if (m_phase == Phase::Done)
        return;
    m_phase = Phase::Done;
    if (m_exchange)
        m_exchange->endChunked(m_exitEvent.isEmpty()
                                   ? QByteArray()
                                   : QJsonDocument(m_exitEvent).toJson(QJsonDocument::Compact) +
                                         '\n');
    m_manager->releaseSync(m_jobId);
    if (m_plan) {
        m_plan->release();
        m_plan.reset();
    }
    deleteLater();
}

} // namespace runbox::api
