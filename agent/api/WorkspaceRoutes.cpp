#include "agent/api/WorkspaceRoutes.h"

#include "agent/api/ApiService.h"

#include <QJsonArray>

namespace runbox::api {

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
            for (auto it = body.begin(); it != body.end(); ++it)
                if (it.key() != QLatin1String("isolation") && it.key() != QLatin1String("count"))
                    return ex->replyError(400, QStringLiteral("invalid_request"),
                                          QStringLiteral("unknown field \"%1\"").arg(it.key()));
            const QString isolation =
                body.value(QLatin1String("isolation")).toString(QStringLiteral("strong"));
            if (isolation == QLatin1String("light"))
                return ex->replyError(
                    503, QStringLiteral("light_unavailable"),
                    QStringLiteral("light workspaces are not available on this agent yet"));
            if (isolation != QLatin1String("strong"))
                return ex->replyError(400, QStringLiteral("invalid_isolation"),
                                      QStringLiteral("isolation must be \"strong\" or \"light\""));
            const QJsonValue count = body.value(QLatin1String("count"));
            if (!count.isUndefined() && count.toInt(-1) != 1)
                return ex->replyError(
                    400, QStringLiteral("invalid_request"),
                    QStringLiteral("strong workspaces are created one at a time (count 1)"));
            workspace::Workspace ws;
            if (auto err = ctx->workspaces->create(who.tokenId, &ws))
                return ex->replyError(*err);
            QJsonObject item = ws.toJson();
            item.insert(QStringLiteral("token"), QString::fromLatin1(WorkspaceToken::derive(
                                                     ctx->agentToken, ws.id, ws.tokenNonce)));
            ex->replyJson(201, {{"workspaces", QJsonArray{item}}, {"rejected", 0}});
        });
    router.add("GET", QStringLiteral("/v1/workspaces"),
               [ctx](http::HttpExchange* ex, const Principal& who, const PathParams&) {
                   QJsonArray items;
                   for (const workspace::Workspace& ws : ctx->workspaces->list())
                       if (who.mayUseWorkspace(ws.id))
                           items.append(ws.toJson());
                   ex->replyJson(200, {{"workspaces", items}});
               });
    router.add("DELETE", QStringLiteral("/v1/workspaces/{id}"),
               [ctx, isBusy](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   const QString id = p.value(QStringLiteral("id"));
                   if (!who.mayUseWorkspace(id) || !ctx->workspaces->find(id))
                       return ex->replyError(404, QStringLiteral("workspace_not_found"),
                                             QStringLiteral("no workspace %1").arg(id));
                   if (isBusy(id))
                       return ex->replyError(
                           409, QStringLiteral("workspace_busy"),
                           QStringLiteral("an execution is running in %1").arg(id));
                   if (auto err = ctx->workspaces->remove(id))
                       return ex->replyError(*err);
                   ex->replyJson(200, {{"deleted", id}});
               });
}

} // namespace runbox::api
