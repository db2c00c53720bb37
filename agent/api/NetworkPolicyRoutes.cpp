#include "agent/api/NetworkPolicyRoutes.h"

#include "agent/api/ApiService.h"
#include "agent/egress/EgressService.h"
#include "agent/execution/ExecutionManager.h"
#include "agent/workspace/WorkspaceRegistry.h"

#include <QJsonArray>

namespace runbox::api {

namespace {

bool requireAgent(http::HttpExchange* ex, const Principal& who) {
    if (who.isAgent())
        return true;
    ex->replyError(403, QStringLiteral("forbidden"),
                   QStringLiteral("the network policy needs the agent token"));
    return false;
}

void putPolicy(AgentContext* ctx, http::HttpExchange* ex, const Principal& who) {
    QJsonObject body;
    if (auto err = parseJsonObject(ex->request().body, &body))
        return ex->replyError(*err);
    egress::NetworkPolicy applied;
    if (auto err = ctx->egress->updatePolicy(body, who.tokenId, &applied))
        return ex->replyError(*err);
    ex->replyJson(200, applied.toJson());
}

void listDecisions(AgentContext* ctx, http::HttpExchange* ex, const Principal& who,
                   const QString& id) {
    const auto notFound = [&] {
        ex->replyError(404, QStringLiteral("execution_not_found"),
                       QStringLiteral("no execution %1").arg(id));
    };
    // Managed executions are checked against their record; sync ones (no record) against the
    // workspace stored with their decisions.
    QString workspaceId;
    store::ExecutionRecord record;
    if (!ctx->manager->get(id, &record)) {
        workspaceId = record.workspaceId;
    } else if (auto err = ctx->egress->decisionWorkspace(id, &workspaceId)) {
        return ex->replyError(*err);
    } else if (workspaceId.isEmpty()) {
        return notFound();
    }
    if (!who.mayUseWorkspace(workspaceId))
        return notFound();
    QList<egress::EgressDecision> decisions;
    if (auto err = ctx->egress->decisions(id, &decisions))
        return ex->replyError(*err);
    QJsonArray items;
    for (const egress::EgressDecision& d : std::as_const(decisions))
        items.append(d.toJson());
    ex->replyJson(200, {{"decisions", items}});
}

/// `GET /v1/workspaces/{id}/egress`: every decision recorded with the workspace (a light
/// workspace's connections, which belong to no one execution, and its executions'), also after
/// the workspace was deleted.
void listWorkspaceDecisions(AgentContext* ctx, http::HttpExchange* ex, const Principal& who,
                            const QString& id) {
    QList<egress::EgressDecision> decisions;
    if (who.mayUseWorkspace(id)) {
        if (auto err = ctx->egress->workspaceDecisions(id, &decisions))
            return ex->replyError(*err);
    }
    if (!who.mayUseWorkspace(id) || (decisions.isEmpty() && !ctx->workspaces->find(id)))
        return ex->replyError(404, QStringLiteral("workspace_not_found"),
                              QStringLiteral("no workspace %1").arg(id));
    QJsonArray items;
    for (const egress::EgressDecision& d : std::as_const(decisions))
        items.append(d.toJson());
    ex->replyJson(200, {{"decisions", items}});
}

} // namespace

void NetworkPolicyRoutes::registerRoutes(Router& router, AgentContext* ctx) {
    router.add("GET", QStringLiteral("/v1/settings/network-policy"),
               [ctx](http::HttpExchange* ex, const Principal& who, const PathParams&) {
                   if (requireAgent(ex, who))
                       ex->replyJson(200, ctx->egress->currentPolicy().toJson());
               });
    router.add("PUT", QStringLiteral("/v1/settings/network-policy"),
               [ctx](http::HttpExchange* ex, const Principal& who, const PathParams&) {
                   if (requireAgent(ex, who))
                       putPolicy(ctx, ex, who);
               });
    router.add("GET", QStringLiteral("/v1/executions/{id}/egress"),
               [ctx](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   listDecisions(ctx, ex, who, p.value(QStringLiteral("id")));
               });
    router.add("GET", QStringLiteral("/v1/workspaces/{id}/egress"),
               [ctx](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   listWorkspaceDecisions(ctx, ex, who, p.value(QStringLiteral("id")));
               });
}

} // namespace runbox::api
