#include "agent/api/SettingsRoutes.h"

#include "agent/api/ApiService.h"
#include "agent/execution/ExecutionManager.h"
#include "agent/light/tier/LightService.h"
#include "agent/store/QuotaStore.h"

#include <QDateTime>

namespace runbox::api {

namespace {

QJsonObject quotasBody(AgentContext* ctx) {
    std::optional<store::AuditEntry> last;
    ctx->quotas->lastChange(&last);
    return {{"quotas", ctx->quotas->current().toJson()},
            {"lastChange", last ? QJsonValue(last->toJson()) : QJsonValue()}};
}

bool requireAgent(http::HttpExchange* ex, const Principal& who) {
    if (who.isAgent())
        return true;
    ex->replyError(403, QStringLiteral("forbidden"),
                   QStringLiteral("settings need the agent token"));
    return false;
}

} // namespace

void SettingsRoutes::registerRoutes(Router& router, AgentContext* ctx) {
    router.add("GET", QStringLiteral("/v1/settings/quotas"),
               [ctx](http::HttpExchange* ex, const Principal& who, const PathParams&) {
                   if (requireAgent(ex, who))
                       ex->replyJson(200, quotasBody(ctx));
               });
    router.add("PUT", QStringLiteral("/v1/settings/quotas"),
               [ctx](http::HttpExchange* ex, const Principal& who, const PathParams&) {
                   if (!requireAgent(ex, who))
                       return;
                   QJsonObject patch;
                   if (auto err = parseJsonObject(ex->request().body, &patch))
                       return ex->replyError(*err);
                   if (patch.contains(QLatin1String("quotas")) && patch.size() == 1)
                       patch = patch.value(QLatin1String("quotas")).toObject();
                   store::QuotaSettings applied;
                   if (auto err = ctx->quotas->update(
                           patch, who.tokenId, QDateTime::currentMSecsSinceEpoch(), &applied))
                       return ex->replyError(*err);
                   ctx->manager->applyQuotas();
                   if (ctx->light)
                       ctx->light->applyQuotas();
                   ex->replyJson(200, quotasBody(ctx));
               });
}

} // namespace runbox::api
