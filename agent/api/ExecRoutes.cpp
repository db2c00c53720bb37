#include "agent/api/ExecRoutes.h"

#include "agent/api/ApiService.h"
#include "agent/execution/ExecutionManager.h"
#include "agent/execution/ExecutionRunner.h"
#include "agent/execution/WorkspaceChanges.h"
#include "shared/Crypto.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QPointer>

namespace runbox::api {

namespace {
constexpr qint64 kIdReuseWindowMs = 60000;
constexpr qint64 kPauseAboveBytes = 1 << 20;
constexpr qint64 kResumeBelowBytes = 256 << 10;

QByteArray ndjson(const QJsonObject& ev) {
    return QJsonDocument(ev).toJson(QJsonDocument::Compact) + '\n';
}
} // namespace

ExecRoutes::ExecRoutes(AgentContext* context, QObject* parent)
    : QObject(parent), m_context(context) {}

void ExecRoutes::registerRoutes(Router& router) {
    router.add("POST", QStringLiteral("/v1/workspaces/{id}/exec"),
               [this](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   handleExec(ex, who, p);
               });
}

bool ExecRoutes::claimExecutionId(const QString& id) {
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (auto it = m_recentIds.begin(); it != m_recentIds.end();)
        it = now - it.value() > kIdReuseWindowMs ? m_recentIds.erase(it) : std::next(it);
    if (m_recentIds.contains(id))
        return false;
    m_recentIds.insert(id, now);
    return true;
}

void ExecRoutes::handleExec(http::HttpExchange* ex, const Principal& who, const PathParams& p) {
    const QString wsId = p.value(QStringLiteral("id"));
    const workspace::Workspace* ws = m_context->workspaces->find(wsId);
    if (!ws || !who.mayUseWorkspace(wsId))
        return ex->replyError(404, QStringLiteral("workspace_not_found"),
                              QStringLiteral("no workspace %1").arg(wsId));
    QJsonObject body;
    if (auto err = parseJsonObject(ex->request().body, &body))
        return ex->replyError(*err);
    execution::ExecutionManager* manager = m_context->manager;
    execution::ExecRequest req;
    if (auto err = execution::ExecRequest::parse(body, manager->limits(), &req))
        return ex->replyError(*err);
    if (!req.npuDevices.isEmpty())
        return ex->replyError(400, QStringLiteral("npu_unavailable"),
                              QStringLiteral("no Ascend NPU passthrough on this agent"));
    if (!m_context->sandboxReady())
        return ex->replyError(503, QStringLiteral("sandbox_unavailable"),
                              m_context->unavailableReason());
    if (!req.executionId.isEmpty() && !claimExecutionId(req.executionId))
        return ex->replyError(
            409, QStringLiteral("duplicate_execution_id"),
            QStringLiteral("executionId %1 was used in the last 60 s").arg(req.executionId));
    const QString jobId =
        req.executionId.isEmpty()
            ? QStringLiteral("x") + QString::fromLatin1(crypto::randomBytes(8).toHex())
            : QStringLiteral("sync:") + req.executionId;
    const execution::PermissionEpoch epoch = manager->currentEpoch(req);
    execution::LaunchPlan plan;
    if (auto err = manager->planner().plan(req, ws->directory, jobId, epoch, &plan))
        return ex->replyError(*err);

    execution::ExecutionRunner::Options opts;
    opts.executionId = req.executionId.isEmpty() ? jobId : req.executionId;
    opts.workspaceId = wsId;
    opts.timeoutMs = req.timeoutMs;
    opts.maxOutputBytes = req.maxOutputBytes;
    opts.setupTimeoutMs = m_context->config.setupTimeoutMs;
    opts.maxProcesses = m_context->host.maxProcesses;
    opts.stdinData = req.stdinData;
    execution::trackWorkspaceChanges(&opts, ws->fs);
    auto* runner = new execution::ExecutionRunner(plan.launch, opts, this);
    auto release = plan.release;

    QPointer<http::HttpExchange> exchange(ex);
    ex->beginChunked(200, "application/x-ndjson");
    connect(runner, &execution::ExecutionRunner::event, ex,
            [exchange, runner](const QJsonObject& ev) {
                if (!exchange)
                    return;
                exchange->writeChunk(ndjson(ev));
                if (exchange->pendingBytes() > kPauseAboveBytes)
                    runner->setPaused(true);
            });
    connect(ex, &http::HttpExchange::writable, runner, [exchange, runner] {
        if (exchange && exchange->pendingBytes() < kResumeBelowBytes)
            runner->setPaused(false);
    });
    auto started = std::make_shared<bool>(false);
    auto clientGone = [this, runner, manager, jobId, started] {
        if (*started) {
            runner->stop(QStringLiteral("cancelled"), QStringLiteral("the client disconnected"));
        } else {
            manager->releaseSync(jobId); // still queued: it never starts
            runner->deleteLater();
        }
    };
    connect(ex, &http::HttpExchange::clientGone, runner, clientGone);
    connect(ex, &QObject::destroyed, runner, clientGone);
    connect(runner, &execution::ExecutionRunner::finished, this,
            [this, exchange, runner, manager, jobId, release,
             started](const execution::ExecutionResult&) {
                if (exchange)
                    exchange->endChunked();
                manager->releaseSync(jobId);
                if (release)
                    release();
                m_running.remove(runner);
                runner->deleteLater();
            });
    connect(runner, &QObject::destroyed, this, [this, runner] { m_running.remove(runner); });
    m_running.insert(runner);
    QPointer<execution::ExecutionRunner> guard(runner);
    manager->scheduleSync(jobId, wsId, [guard, started] {
        if (!guard)
            return;
        *started = true;
        guard->start();
    });
    if (manager->workspaceBusy(wsId) && !*started)
        ex->writeChunk(
            ndjson({{"type", "queued"}, {"reason", "another execution holds the workspace"}}));
}

void ExecRoutes::stopAll() {
    for (execution::ExecutionRunner* r : std::as_const(m_running))
        r->stop(QStringLiteral("cancelled"), QStringLiteral("the agent is shutting down"));
}

} // namespace runbox::api
