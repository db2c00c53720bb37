#include "agent/api/EnvironmentRoutes.h"

#include "agent/api/ApiService.h"
#include "agent/environments/EnvironmentService.h"

namespace runbox::api {

namespace {

/// The service, or nullptr after answering 403 / 503.
environments::EnvironmentService* serviceFor(AgentContext* ctx, http::HttpExchange* ex,
                                             const Principal& who) {
    if (!who.isAgent()) {
        ex->replyError(403, QStringLiteral("forbidden"),
                       QStringLiteral("environments need the agent token"));
        return nullptr;
    }
    if (!ctx->environments)
        ex->replyError(503, QStringLiteral("environments_unavailable"),
                       QStringLiteral("this agent has no science environments"));
    return ctx->environments;
}

/// Runs @p call and answers @p status with its object, or its error.
template <typename Call> void answer(http::HttpExchange* ex, int status, Call call) {
    QJsonObject body;
    if (std::optional<Error> err = call(&body))
        return ex->replyError(*err);
    ex->replyJson(status, body);
}

} // namespace

void EnvironmentRoutes::registerRoutes(Router& router, AgentContext* ctx) {
    router.add("GET", QStringLiteral("/v1/environments"),
               [ctx](http::HttpExchange* ex, const Principal& who, const PathParams&) {
                   if (auto* s = serviceFor(ctx, ex, who))
                       answer(ex, 200, [s](QJsonObject* out) { return s->list(out); });
               });
    router.add("POST", QStringLiteral("/v1/environments"),
               [ctx](http::HttpExchange* ex, const Principal& who, const PathParams&) {
                   auto* s = serviceFor(ctx, ex, who);
                   QJsonObject body;
                   if (!s)
                       return;
                   if (auto err = parseJsonObject(ex->request().body, &body))
                       return ex->replyError(*err);
                   answer(ex, 201, [s, &body](QJsonObject* out) { return s->create(body, out); });
               });
    router.add("GET", QStringLiteral("/v1/environments/{id}"),
               [ctx](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   if (auto* s = serviceFor(ctx, ex, who))
                       answer(ex, 200, [s, id = p.value(QStringLiteral("id"))](QJsonObject* out) {
                           return s->get(id, out);
                       });
               });
    router.add("DELETE", QStringLiteral("/v1/environments/{id}"),
               [ctx](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   if (auto* s = serviceFor(ctx, ex, who))
                       answer(ex, 200, [s, id = p.value(QStringLiteral("id"))](QJsonObject* out) {
                           auto err = s->remove(id);
                           *out = QJsonObject{{"deleted", id}};
                           return err;
                       });
               });
    for (const bool remove : {false, true})
        router.add(
            "POST",
            remove ? QStringLiteral("/v1/environments/{id}/uninstall")
                   : QStringLiteral("/v1/environments/{id}/install"),
            [ctx, remove](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                auto* s = serviceFor(ctx, ex, who);
                QJsonObject body;
                if (!s)
                    return;
                if (auto err = parseJsonObject(ex->request().body, &body))
                    return ex->replyError(*err);
                answer(ex, 202,
                       [s, &body, remove, id = p.value(QStringLiteral("id"))](QJsonObject* out) {
                           return remove ? s->uninstall(id, body, out) : s->install(id, body, out);
                       });
            });
    router.add("GET", QStringLiteral("/v1/environments/{id}/revisions"),
               [ctx](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   if (auto* s = serviceFor(ctx, ex, who))
                       answer(ex, 200, [s, id = p.value(QStringLiteral("id"))](QJsonObject* out) {
                           return s->revisions(id, out);
                       });
               });
    router.add("GET", QStringLiteral("/v1/environment-revisions/{id}/snapshot"),
               [ctx](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   if (auto* s = serviceFor(ctx, ex, who))
                       answer(ex, 200, [s, id = p.value(QStringLiteral("id"))](QJsonObject* out) {
                           return s->snapshot(id, out);
                       });
               });
}

} // namespace runbox::api
