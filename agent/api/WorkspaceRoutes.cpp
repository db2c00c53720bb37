#include "agent/api/WorkspaceRoutes.h"

#include "agent/api/ApiService.h"
#include "agent/environments/EnvironmentService.h"
#include "agent/light/LightWorkspaceHost.h"
#include "agent/light/tier/LightService.h"
#include "agent/pool/PoolHost.h"
#include "agent/store/ExecutionRecord.h"
#include "agent/store/ExecutionRepository.h"

#include <QJsonArray>
#include <QPointer>

namespace runbox::api {

namespace {

/// Slots a create of @p count may fill (docs/contracts.md "Pool hosts"): all of them on an
/// agent that is no pool host, else what the pool's capacity leaves. Release what was granted.
int reservePoolSlots(AgentContext* ctx, int count) {
    return ctx->pool ? ctx->pool->reserve(count) : count;
}

void releasePoolSlots(AgentContext* ctx, int granted) {
    if (ctx->pool)
        ctx->pool->release(granted);
}

/// The answer of a create the pool's capacity refused entirely: nothing made, all rejected.
void replyAllRejected(http::HttpExchange* ex, int count) {
    ex->replyJson(201, {{"workspaces", QJsonArray{}}, {"rejected", count}});
}

void createLight(AgentContext* ctx, http::HttpExchange* ex, const Principal& who,
                 const QJsonObject& body) {
    if (!ctx->light || !ctx->light->available())
        return ex->replyError(503, QStringLiteral("light_unavailable"),
                              ctx->light ? ctx->light->availability().reason
                                         : QStringLiteral("light workspaces are not started"));
    light::LightCreateRequest request;
    if (auto err = ctx->light->parseCreate(body, &request))
        return ex->replyError(*err);
    const int asked = request.count;
    // A count out of range is the light tier's to refuse (400 invalid_count), never clamped.
    const bool inRange = asked >= 1 && asked <= light::LightWorkspaceHost::kMaxCreateCount;
    const int granted = inRange ? reservePoolSlots(ctx, asked) : asked;
    if (inRange && granted == 0)
        return replyAllRejected(ex, asked);
    request.count = granted;
    QPointer<http::HttpExchange> guard(ex);
    ctx->light->create(request, who.tokenId,
                       [guard, ctx, asked, granted, inRange](std::optional<Error> err,
                                                             const QJsonObject& created) {
                           if (inRange)
                               releasePoolSlots(ctx, granted); // the made ones are registered now
                           if (!guard)
                               return;
                           if (err)
                               return guard->replyError(*err);
                           QJsonObject answer = created;
                           answer.insert(QStringLiteral("rejected"),
                                         created.value(QLatin1String("rejected")).toInt() + asked -
                                             granted);
                           guard->replyJson(201, answer);
                       });
}

void deleteAllLight(AgentContext* ctx, http::HttpExchange* ex, const Principal& who) {
    if (!who.isAgent())
        return ex->replyError(403, QStringLiteral("forbidden"),
                              QStringLiteral("only the agent token deletes workspaces in bulk"));
    if (ex->request().queryValue(QStringLiteral("isolation")) != QLatin1String("light"))
        return ex->replyError(400, QStringLiteral("invalid_request"),
                              QStringLiteral("bulk delete needs ?isolation=light (strong "
                                             "workspaces are deleted one by one)"));
    if (!ctx->light)
        return ex->replyJson(200, {{"deleted", QJsonArray{}}, {"errors", QJsonArray{}}});
    QPointer<http::HttpExchange> guard(ex);
    ctx->light->removeAll([guard](const QStringList& deleted, const QList<Error>& errors) {
        if (!guard)
            return;
        QJsonArray failures;
        for (const Error& e : errors)
            failures.append(QJsonObject{{"code", e.code}, {"message", e.message}});
        guard->replyJson(errors.isEmpty() ? 200 : 500,
                         {{"deleted", QJsonArray::fromStringList(deleted)}, {"errors", failures}});
    });
}

} // namespace

void WorkspaceRoutes::registerRoutes(Router& router, AgentContext* ctx,
                                     std::function<bool(const QString&)> isBusy) {
    router.add(
        "POST", QStringLiteral("/v1/workspaces"),
        [ctx](http::HttpExchange* ex, const Principal& who, const PathParams&) {
            if (!who.isAgent())
                return ex->replyError(403, QStringLiteral("forbidden"),
                                      QStringLiteral("only the agent token creates workspaces"));
            QJsonObject body;
            if (auto err = parseJsonObject(ex->request().body, &body))
                return ex->replyError(*err);
            // A pool client names the pool it places in: the host is the authority on whether
            // it carries it (docs/contracts.md "Pool hosts"), whatever the client's cache says.
            if (const QJsonValue pool = body.take(QLatin1String("pool")); !pool.isUndefined()) {
                const QString carried = ctx->pool ? ctx->pool->name() : QString();
                if (!pool.isString() || pool.toString().isEmpty())
                    return ex->replyError(400, QStringLiteral("invalid_request"),
                                          QStringLiteral("pool must be a pool's name"));
                if (pool.toString() != carried)
                    return ex->replyError(
                        409, QStringLiteral("pool_mismatch"),
                        carried.isEmpty()
                            ? QStringLiteral("this agent is no pool host (asked for pool %1)")
                                  .arg(pool.toString())
                            : QStringLiteral("this agent is a host of pool %1, not of %2")
                                  .arg(carried, pool.toString()));
            }
            const QString isolation =
                body.value(QLatin1String("isolation")).toString(QStringLiteral("strong"));
            if (isolation == QLatin1String("light"))
                return createLight(ctx, ex, who, body);
            for (auto it = body.begin(); it != body.end(); ++it)
                if (it.key() != QLatin1String("isolation") && it.key() != QLatin1String("count"))
                    return ex->replyError(400, QStringLiteral("invalid_request"),
                                          QStringLiteral("unknown field \"%1\"").arg(it.key()));
            if (isolation != QLatin1String("strong"))
                return ex->replyError(400, QStringLiteral("invalid_isolation"),
                                      QStringLiteral("isolation must be \"strong\" or \"light\""));
            const QJsonValue count = body.value(QLatin1String("count"));
            if (!count.isUndefined() && count.toInt(-1) != 1)
                return ex->replyError(
                    400, QStringLiteral("invalid_request"),
                    QStringLiteral("strong workspaces are created one at a time (count 1)"));
            if (reservePoolSlots(ctx, 1) == 0)
                return replyAllRejected(ex, 1);
            workspace::Workspace ws;
            const std::optional<Error> err = ctx->workspaces->create(who.tokenId, &ws);
            releasePoolSlots(ctx, 1);
            if (err)
                return ex->replyError(*err);
            ctx->noteWorkspaceCount();
            QJsonObject item = ws.toJson();
            item.insert(QStringLiteral("token"), QString::fromLatin1(WorkspaceToken::derive(
                                                     ctx->agentToken, ws.id, ws.tokenNonce)));
            ex->replyJson(201, {{"workspaces", QJsonArray{item}}, {"rejected", 0}});
        });
    router.add(
        "GET", QStringLiteral("/v1/workspaces"),
        [ctx](http::HttpExchange* ex, const Principal& who, const PathParams&) {
            bool filtered = false;
            const QString isolation =
                ex->request().queryValue(QStringLiteral("isolation"), &filtered);
            QHash<QString, store::WorkspaceExecutionSummary> recorded;
            if (ctx->executions)
                if (auto err = ctx->executions->summarizeByWorkspace(&recorded))
                    return ex->replyError(*err);
            QJsonArray items;
            for (const workspace::Workspace& ws : ctx->workspaces->list()) {
                if (!who.mayUseWorkspace(ws.id) || (filtered && ws.isolation != isolation))
                    continue;
                QJsonObject item = ws.toJson();
                // The public half of the workspace's token, for the agent-token holder
                // to re-derive it (docs/contracts.md "Request signing", "Tokens").
                if (who.isAgent())
                    item.insert(QStringLiteral("tokenNonce"), QString::fromLatin1(ws.tokenNonce));
                const store::WorkspaceExecutionSummary summary = recorded.value(ws.id);
                item.insert(QStringLiteral("recordedExecutions"), double(summary.recorded));
                item.insert(QStringLiteral("lastExecutionAt"),
                            summary.lastCreatedMs
                                ? QJsonValue(store::isoTimestamp(summary.lastCreatedMs))
                                : QJsonValue());
                // An environment's build workspace is the agent's (docs/environments.md).
                if (const QString env = ctx->environments
                                            ? ctx->environments->environmentBuiltIn(ws.id)
                                            : QString();
                    !env.isEmpty())
                    item.insert(QStringLiteral("environmentBuild"), env);
                if (ctx->light && light::LightService::serves(ws)) {
                    item.insert(QStringLiteral("confinement"), ctx->light->confinementOf(ws.id));
                    item.insert(QStringLiteral("lastBoundsKill"),
                                ctx->light->lastBoundsKillOf(ws.id));
                    const QJsonObject idle = ctx->light->idleJsonOf(ws.id);
                    for (auto it = idle.begin(); it != idle.end(); ++it)
                        item.insert(it.key(), it.value());
                    const QJsonObject environment = ctx->light->environments()->json(ws.id);
                    for (auto it = environment.begin(); it != environment.end(); ++it)
                        item.insert(it.key(), it.value());
                }
                items.append(item);
            }
            ex->replyJson(200, {{"workspaces", items}});
        });
    router.add("DELETE", QStringLiteral("/v1/workspaces"),
               [ctx](http::HttpExchange* ex, const Principal& who, const PathParams&) {
                   deleteAllLight(ctx, ex, who);
               });
    router.add(
        "DELETE", QStringLiteral("/v1/workspaces/{id}"),
        [ctx, isBusy](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
            const QString id = p.value(QStringLiteral("id"));
            const workspace::Workspace* ws = ctx->workspaces->find(id);
            if (!who.mayUseWorkspace(id) || !ws)
                return ex->replyError(404, QStringLiteral("workspace_not_found"),
                                      QStringLiteral("no workspace %1").arg(id));
            if (ctx->light && light::LightService::serves(*ws)) {
                QPointer<http::HttpExchange> guard(ex);
                return ctx->light->remove(id, [guard, id](std::optional<Error> err) {
                    if (!guard)
                        return;
                    if (err)
                        return guard->replyError(*err);
                    guard->replyJson(200, {{"deleted", id}});
                });
            }
            if (isBusy(id))
                return ex->replyError(409, QStringLiteral("workspace_busy"),
                                      QStringLiteral("an execution is running in %1").arg(id));
            // An environment's build workspace goes with its environment only.
            if (const QString env =
                    ctx->environments ? ctx->environments->environmentBuiltIn(id) : QString();
                !env.isEmpty())
                return ex->replyError(
                    409, QStringLiteral("workspace_in_use"),
                    QStringLiteral("%1 is the build workspace of environment %2: delete "
                                   "the environment instead")
                        .arg(id, env));
            // Gone at once (404 to new calls); its tree is removed off the event loop, and the
            // answer comes once it is.
            QPointer<http::HttpExchange> guard(ex);
            if (auto err = ctx->workspaces->remove(id, [guard, id](std::optional<Error> err) {
                    if (!guard)
                        return;
                    if (err)
                        return guard->replyError(*err);
                    guard->replyJson(200, {{"deleted", id}});
                }))
                return ex->replyError(*err);
            ctx->noteWorkspaceCount();
        });
}

} // namespace runbox::api
