#include "agent/api/ExecRoutes.h"

#include "agent/api/ApiService.h"
#include "agent/execution/ExecutionRunner.h"
#include "agent/sandbox/BwrapCommand.h"
#include "agent/workspace/WorkspaceSnapshot.h"
#include "shared/Crypto.h"

#include <QDateTime>
#include <QJsonDocument>

namespace runbox::api {

namespace {
constexpr qint64 kIdReuseWindowMs = 60000;
constexpr qint64 kPauseAboveBytes = 1 << 20;
constexpr qint64 kResumeBelowBytes = 256 << 10;
} // namespace

execution::FileChanges changesSince(const workspace::WorkspaceFs& fs,
                                    const std::optional<workspace::WorkspaceSnapshot>& before) {
    execution::FileChanges changes;
    auto after = workspace::WorkspaceSnapshot::capture(fs.rootFd());
    if (!before || !after.ok()) {
        changes.truncated = true;
        return changes;
    }
    const workspace::WorkspaceDiff diff =
        workspace::WorkspaceSnapshot::diff(*before, after.value());
    auto toStrings = [](const QList<QByteArray>& paths) {
        QStringList out;
        for (const QByteArray& p : paths)
            out << QString::fromUtf8(p);
        return out;
    };
    changes.created = toStrings(diff.createdFiles);
    changes.modified = toStrings(diff.modifiedFiles);
    changes.deleted = toStrings(diff.deletedFiles);
    changes.truncated = diff.truncated;
    return changes;
}

ExecRoutes::ExecRoutes(AgentContext* context, QObject* parent)
    : QObject(parent), m_context(context) {}

execution::ExecLimits ExecRoutes::limits() const {
    execution::ExecLimits l;
    l.defaultTimeoutMs = m_context->config.defaultExecutionTimeoutMs;
    l.defaultMaxOutputBytes = m_context->config.maxOutputBytes;
    l.maxOutputBytesCeiling = m_context->config.maxOutputBytes;
    l.rAvailable = m_context->rAvailable;
    return l;
}

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
    if (auto err = execution::ExecRequest::parse(body, limits(), &req))
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

    sandbox::LaunchSpec spec;
    spec.workspaceDir = ws->directory;
    spec.cwd = req.cwd;
    spec.command = req.sandboxCommand();
    spec.userEnv = req.env;
    spec.seccompPath = m_context->seccompPaths.value(sandbox::SeccompProfileKind::Baseline);
    spec.identityDir = m_context->identityDir;
    spec.stateDir = m_context->config.stateDir;
    const sandbox::SandboxLaunch launch = sandbox::BwrapCommand::build(m_context->capability, spec);

    execution::ExecutionRunner::Options opts;
    opts.executionId =
        req.executionId.isEmpty()
            ? QStringLiteral("x") + QString::fromLatin1(crypto::randomBytes(8).toHex())
            : req.executionId;
    opts.workspaceId = wsId;
    opts.timeoutMs = req.timeoutMs;
    opts.maxOutputBytes = req.maxOutputBytes;
    opts.setupTimeoutMs = m_context->config.setupTimeoutMs;
    opts.stdinData = req.stdinData;
    auto before = std::make_shared<std::optional<workspace::WorkspaceSnapshot>>();
    std::shared_ptr<const workspace::WorkspaceFs> fs = ws->fs;
    opts.snapshotBefore = [fs, before] {
        auto snap = workspace::WorkspaceSnapshot::capture(fs->rootFd());
        if (snap.ok())
            *before = std::move(snap.value());
    };
    opts.changesAfter = [fs, before] { return changesSince(*fs, *before); };
    auto* runner = new execution::ExecutionRunner(launch, opts, this);
    m_running.insert(runner);
    m_busy[wsId] += 1;

    QPointer<http::HttpExchange> exchange(ex);
    ex->beginChunked(200, "application/x-ndjson");
    connect(runner, &execution::ExecutionRunner::event, ex,
            [exchange, runner](const QJsonObject& ev) {
                if (!exchange)
                    return;
                exchange->writeChunk(QJsonDocument(ev).toJson(QJsonDocument::Compact) + '\n');
                if (exchange->pendingBytes() > kPauseAboveBytes)
                    runner->setPaused(true);
            });
    connect(ex, &http::HttpExchange::writable, runner, [exchange, runner] {
        if (exchange && exchange->pendingBytes() < kResumeBelowBytes)
            runner->setPaused(false);
    });
    connect(ex, &http::HttpExchange::clientGone, runner, [runner] {
        runner->stop(QStringLiteral("cancelled"), QStringLiteral("the client disconnected"));
    });
    connect(ex, &QObject::destroyed, runner, [runner] {
        runner->stop(QStringLiteral("cancelled"), QStringLiteral("the client disconnected"));
    });
    connect(runner, &execution::ExecutionRunner::finished, this,
            [this, exchange, runner, wsId](const execution::ExecutionResult&) {
                if (exchange)
                    exchange->endChunked();
                if (--m_busy[wsId] <= 0)
                    m_busy.remove(wsId);
                m_running.remove(runner);
                runner->deleteLater();
            });
    runner->start();
}

void ExecRoutes::stopAll() {
    for (execution::ExecutionRunner* r : std::as_const(m_running))
        r->stop(QStringLiteral("cancelled"), QStringLiteral("the agent is shutting down"));
}

} // namespace runbox::api
