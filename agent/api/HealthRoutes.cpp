#include "agent/api/HealthRoutes.h"

#include "agent/bounds/BoundsHost.h"
#include "agent/egress/EgressService.h"
#include "agent/environments/EnvironmentService.h"
#include "agent/execution/ExecutionManager.h"
#include "agent/light/tier/LightService.h"
#include "agent/npu/NpuService.h"
#include "agent/pool/PoolHost.h"
#include "agent/store/ExecutionRetention.h"
#include "agent/store/QuotaStore.h"
#include "agent/workspace/WorkspaceResolver.h"
#include "shared/ProtocolVersion.h"

#include <QDateTime>
#include <QJsonArray>

namespace runbox::api {

QJsonObject HealthRoutes::publicHealth(const QByteArray& poolHostNonce) {
    QJsonObject body{
        {"status", "ok"}, {"version", RUNBOX_VERSION}, {"protocol", protocol::kVersion}};
    if (!poolHostNonce.isEmpty())
        body.insert(QStringLiteral("pool"),
                    QJsonObject{{"hostNonce", QString::fromLatin1(poolHostNonce)}});
    return body;
}

void HealthRoutes::registerRoutes(Router& router, AgentContext* ctx) {
    router.add(
        "GET", QStringLiteral("/v1/health"),
        [ctx](http::HttpExchange* ex, const Principal&, const PathParams&) {
            QJsonObject sandbox = ctx->host.capability.toJson();
            sandbox.insert(QStringLiteral("ready"), ctx->sandboxReady());
            if (!ctx->sandboxReady())
                sandbox.insert(QStringLiteral("unavailableReason"), ctx->unavailableReason());
            // Whom sandboxes run as on the host (docs/contracts.md "No sandbox is host root").
            QJsonObject user{{"mode", ctx->host.sandboxUids ? "workspace-uid" : "agent-uid"},
                             {"usable", ctx->host.sandboxUserError.isEmpty()}};
            if (ctx->host.sandboxUids)
                user.insert(QStringLiteral("uidRange"),
                            QJsonObject{{"first", double(ctx->host.sandboxUids->first)},
                                        {"count", double(ctx->host.sandboxUids->count)}});
            if (!ctx->host.sandboxUserError.isEmpty())
                user.insert(QStringLiteral("reason"), ctx->host.sandboxUserError);
            sandbox.insert(QStringLiteral("sandboxUser"), user);
            QJsonObject seccomp{{"arch", sandbox::SeccompProfile::nativeArch()},
                                {"profiles", QJsonArray{"baseline", "network", "npu"}},
                                {"deniedAction", "EPERM"}};
            if (!ctx->host.seccompError.isEmpty())
                seccomp.insert(QStringLiteral("error"), ctx->host.seccompError);
            QJsonObject body = publicHealth();
            body.insert(QStringLiteral("sandbox"), sandbox);
            body.insert(QStringLiteral("seccomp"), seccomp);
            body.insert(QStringLiteral("egress"),
                        ctx->egress ? ctx->egress->healthJson()
                                    : QJsonObject{{"available", false},
                                                  {"reason", "egress is not wired"},
                                                  {"modes", QJsonArray{"none"}}});
            const store::QuotaSettings quotas = ctx->quotas->current();
            body.insert(QStringLiteral("limits"),
                        QJsonObject{{"executionTimeoutMs", quotas.defaultExecutionTimeoutMs},
                                    {"maxOutputBytes", quotas.maxOutputBytes},
                                    {"setupTimeoutMs", ctx->config.setupTimeoutMs}});
            // The quotas in force now: what executions created now run under.
            body.insert(QStringLiteral("quotas"), quotas.toJson());
            // docs/bounds.md: which mechanism bounds memory, whether the pid budget holds, and
            // how the workspace quota is held.
            body.insert(QStringLiteral("memory"),
                        ctx->bounds ? ctx->bounds->toJson()
                                    : QJsonObject{{"mode", "none"}, {"reason", "not wired"}});
            body.insert(QStringLiteral("cpu"),
                        ctx->bounds ? ctx->bounds->cpuJson()
                                    : QJsonObject{{"mode", "none"}, {"reason", "not wired"}});
            body.insert(QStringLiteral("processes"),
                        bounds::BoundsHost::processesJson(quotas.maxConcurrentExecutions,
                                                          quotas.maxProcesses));
            body.insert(QStringLiteral("disk"),
                        QJsonObject{{"mode", "watcher"},
                                    {"reason", "no project quotas: each file is bounded by "
                                               "RLIMIT_FSIZE at maxWorkspaceBytes (strong), the "
                                               "workspace by a watcher that measures as soon as "
                                               "the tree is written (inotify) and every 50 ms "
                                               "while an execution runs; fallocate(2) that "
                                               "allocates is refused (EOPNOTSUPP), so a writer "
                                               "gets past the quota by what it writes in one "
                                               "measurement; a light workspace with processes "
                                               "left running is watched between executions "
                                               "too, and they are killed past it"}});
            // The kernel's project quota where the host has one, else the watcher above (and
            // why there is none).
            if (ctx->bounds)
                body.insert(QStringLiteral("disk"),
                            ctx->bounds->diskJson(body.value(QLatin1String("disk")).toObject()));
            body.insert(QStringLiteral("languages"), ctx->rAvailable
                                                         ? QJsonArray{"shell", "python", "r"}
                                                         : QJsonArray{"shell", "python"});
            body.insert(QStringLiteral("workspaces"), ctx->workspaces->count());
            body.insert(QStringLiteral("light"),
                        ctx->light ? ctx->light->healthJson()
                                   : QJsonObject{{"available", false},
                                                 {"reason", "light workspaces not started"}});
            body.insert(QStringLiteral("idle"), ctx->idleJson());
            // docs/contracts.md "Pool hosts": what pool clients place workspaces by.
            body.insert(QStringLiteral("pool"), ctx->pool && ctx->pool->isPoolHost()
                                                    ? QJsonValue(ctx->pool->healthJson())
                                                    : QJsonValue());
            // docs/STORE.md "Retention": the finished executions' logs and what is kept.
            if (ctx->retention)
                body.insert(QStringLiteral("logStore"), ctx->retention->healthJson());
            body.insert(QStringLiteral("npu"), ctx->npu ? ctx->npu->healthSummary()
                                                        : QJsonObject{{"source", "none"},
                                                                      {"chips", 0},
                                                                      {"usable", 0},
                                                                      {"broker", false}});
            body.insert(QStringLiteral("scientificEnvs"),
                        ctx->environments ? ctx->environments->healthJson()
                                          : QJsonObject{{"provisioners", QJsonObject{}}});
            body.insert(QStringLiteral("listeners"), ctx->listenersJson);
            body.insert(QStringLiteral("uptimeMs"),
                        QDateTime::currentMSecsSinceEpoch() - ctx->startedAtMs);
            ex->replyJson(200, body);
        });
}

} // namespace runbox::api
