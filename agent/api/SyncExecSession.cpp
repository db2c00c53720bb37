#include "agent/api/SyncExecSession.h"

#include "agent/execution/ExecutionManager.h"
#include "agent/execution/ExecutionStream.h"
#include "agent/http/ResponseStream.h"

#include <QJsonDocument>

namespace runbox::api {

SyncExecSession::SyncExecSession(http::HttpExchange* exchange, execution::ExecutionManager* manager,
                                 execution::IsolationTier* tier, execution::TierLaunch launch,
                                 QObject* parent)
    : QObject(parent), m_exchange(exchange), m_manager(manager), m_tier(tier),
      m_launch(std::move(launch)), m_jobId(QStringLiteral("sync:") + m_launch.executionId) {
    connect(exchange, &http::HttpExchange::clientGone, this, &SyncExecSession::onClientGone);
    connect(exchange, &QObject::destroyed, this, &SyncExecSession::onClientGone);
    // docs/contracts.md "Event stream": the backend pauses above 1 MiB queued, resumes below
    // 256 KiB (the defaults of StreamWatermarks).
    m_response = new http::ResponseStream(exchange, http::StreamWatermarks{}, this);
    m_response->onPauseChanged([this](bool paused) {
        if (m_stream)
            m_stream->setPaused(paused);
    });
}

SyncExecSession::~SyncExecSession() = default;

void SyncExecSession::begin() {
    if (m_begun || !m_exchange)
        return;
    m_begun = true;
    m_response->begin();
}

void SyncExecSession::write(const QJsonObject& event) {
    begin();
    if (!m_exchange || m_exchange->isClientGone())
        return;
    m_response->writeEvent(event);
}

void SyncExecSession::start() {
    QPointer<SyncExecSession> self(this);
    m_manager->scheduleSync(m_jobId, m_launch.workspaceId, *m_tier, [self] {
        if (self)
            self->onAdmitted();
    });
    if (const int position = m_manager->queuePosition(m_jobId); position > 0)
        write({{"type", "queued"},
               {"position", position},
               {"reason", m_manager->workspaceBusy(m_launch.workspaceId)
                              ? "another execution holds the workspace"
                              : "the agent is at its concurrency limit"}});
}

void SyncExecSession::onAdmitted() {
    if (m_phase != Phase::Queued)
        return;
    m_phase = Phase::Preparing;
    QPointer<SyncExecSession> self(this);
    m_tier->createBackend(m_launch, this, [self](execution::TierBackend made) {
        if (self)
            self->onBackend(std::move(made));
        else
            delete made.backend;
    });
    // Preparing goes on (the launch's stages: egress, a chip): the client gets the headers now.
    if (m_phase == Phase::Preparing)
        begin();
}

void SyncExecSession::onBackend(execution::TierBackend made) {
    if (m_phase != Phase::Preparing) {
        delete made.backend;
        return;
    }
    execution::ExecutionStream::Options options;
    options.executionId = m_launch.executionId;
    options.workspaceId = m_launch.workspaceId;
    options.maxOutputBytes = m_launch.request.maxOutputBytes;
    options.startedFields = m_tier->startedFields();
    if (!made.backend) {
        const Error error = made.error.value_or(Error{
            ErrorKind::Internal, QStringLiteral("setup_failed"), QStringLiteral("no backend")});
        if (made.refused && !m_begun && m_exchange) {
            m_phase = Phase::Done;
            m_exchange->replyError(error);
            return finish();
        }
        write(execution::ExecutionStream::setupFailedStarted(options));
        execution::ExecutionResult r;
        r.status = QStringLiteral("setup_failed");
        r.reason = error.message;
        return end(r);
    }
    m_phase = Phase::Running;
    m_backend = made.backend;
    m_stream = new execution::ExecutionStream(m_backend, std::move(options), this);
    connect(m_stream, &execution::ExecutionStream::event, this, &SyncExecSession::write);
    connect(m_stream, &execution::ExecutionStream::finished, this, &SyncExecSession::end);
    connect(m_manager, &execution::ExecutionManager::executionEvent, this,
            [this](const QString& executionId, const QJsonObject& event) {
                if (m_phase == Phase::Running && executionId == m_launch.executionId)
                    write(event);
            });
    m_stream->start();
    if (m_response->isPaused()) // the queued/preparing events already filled the socket
        m_stream->setPaused(true);
}

void SyncExecSession::onClientGone() {
    switch (m_phase) {
    case Phase::Queued:
    case Phase::Preparing:
        if (m_phase == Phase::Preparing)
            m_tier->abandon(m_launch.executionId);
        m_phase = Phase::Done;
        {
            execution::ExecutionResult gone;
            gone.status = QStringLiteral("cancelled"); // as a running one the client left
            m_manager->reportSyncEnd(m_tier->name(), m_launch.request.kind, gone, false);
        }
        finish();
        break;
    case Phase::Running:
        m_backend->skipFileChanges();
        m_backend->stop(QStringLiteral("cancelled"), QStringLiteral("the client disconnected"));
        break;
    case Phase::Done:
        break;
    }
}

void SyncExecSession::stop(const QString& reason) {
    if (m_phase == Phase::Running)
        m_backend->stop(QStringLiteral("cancelled"), reason);
    else
        onClientGone();
}

void SyncExecSession::end(const execution::ExecutionResult& result) {
    if (m_phase == Phase::Done)
        return;
    m_phase = Phase::Done;
    m_manager->reportSyncEnd(m_tier->name(), m_launch.request.kind, result, m_backend != nullptr);
    begin();
    // The exit event goes out with the terminating chunk, in one write.
    m_response->end(QJsonDocument(result.toEvent()).toJson(QJsonDocument::Compact) + '\n');
    finish();
}

void SyncExecSession::finish() {
    m_manager->releaseSync(m_jobId);
    deleteLater();
}

} // namespace runbox::api
