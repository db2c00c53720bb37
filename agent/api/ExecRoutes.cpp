#include "agent/api/ExecRoutes.h"

#include "agent/api/ApiService.h"
#include "agent/api/ExecIntake.h"
#include "agent/api/NpuSelection.h"
#include "agent/api/SyncExecSession.h"
#include "agent/execution/ExecutionManager.h"
#include "shared/Crypto.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QPointer>

namespace runbox::api {

namespace {
constexpr qint64 kIdReuseWindowMs = 60000;
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
    execution::ExecRequest req;
    if (auto err = parseExecRequest(m_context, body, *ws, &req))
        return ex->replyError(*err);
    resolveNpuDevices(m_context, ex, std::move(req),
                      [this, wsId](http::HttpExchange* exchange, execution::ExecRequest r) {
                          startSession(exchange, wsId, std::move(r));
                      });
}

void ExecRoutes::startSession(http::HttpExchange* ex, const QString& wsId,
                              execution::ExecRequest req) {
    const workspace::Workspace* ws = m_context->workspaces->find(wsId);
    if (!ws)
        return ex->replyError(404, QStringLiteral("workspace_not_found"),
                              QStringLiteral("no workspace %1").arg(wsId));
    execution::ExecutionManager* manager = m_context->manager;
    Error noTier;
    execution::IsolationTier* tier = manager->tierOf(*ws, &noTier);
    if (!tier)
        return ex->replyError(noTier);
    if (!req.executionId.isEmpty() && !claimExecutionId(req.executionId))
        return ex->replyError(
            409, QStringLiteral("duplicate_execution_id"),
            QStringLiteral("executionId %1 was used in the last 60 s").arg(req.executionId));
    execution::TierLaunch launch;
    launch.executionId =
        req.executionId.isEmpty()
            ? QStringLiteral("x") + QString::fromLatin1(crypto::randomBytes(8).toHex())
            : req.executionId;
    launch.workspaceId = wsId;
    launch.workspaceDir = ws->directory;
    launch.workspaceUid = ws->uid;
    launch.fs = ws->fs;
    launch.epoch = manager->currentEpoch(req);
    launch.request = std::move(req);
    auto* session = new SyncExecSession(ex, manager, tier, std::move(launch), this);
    m_sessions.insert(session);
    connect(session, &QObject::destroyed, this, [this, session] { m_sessions.remove(session); });
    session->start();
}

void ExecRoutes::stopAll() {
    for (SyncExecSession* s : std::as_const(m_sessions))
        s->stop(QStringLiteral("the agent is shutting down"));
}

} // namespace runbox::api
