#include "agent/api/ExecutionRoutes.h"

#include "agent/api/ApiService.h"
#include "agent/api/ExecIntake.h"
#include "agent/api/LogStreamSession.h"
#include "agent/api/NpuSelection.h"
#include "agent/egress/EgressService.h"
#include "agent/execution/ExecutionManager.h"
#include "agent/http/ResponseStream.h"
#include "agent/npu/BrokerJobRunner.h"
#include "agent/npu/NpuService.h"
#include "agent/store/ExecutionRepository.h"
#include "agent/store/LogStore.h"
#include "shared/LogFrames.h"

#include <QJsonArray>
#include <QPointer>

#include <csignal>
#include <cstring>

namespace runbox::api {

namespace {

/// A comma-separated filter of names (`state=running,queued`, `kind=broker`), each turned into its
/// value by @p fromString; an unknown one is 400 invalid_filter naming @p what and the name.
template <typename T, typename FromString>
std::optional<ApiError> parseNameList(const QString& text, const char* what, FromString fromString,
                                      QList<T>* out) {
    for (const QString& name : text.split(',', Qt::SkipEmptyParts)) {
        const std::optional<T> value = fromString(name.trimmed());
        if (!value)
            return ApiError{400, QStringLiteral("invalid_filter"),
                            QStringLiteral("unknown %1 \"%2\"").arg(QLatin1String(what), name)};
        out->append(*value);
    }
    return std::nullopt;
}

} // namespace

QJsonObject exitEventOf(const store::ExecutionRecord& r) {
    if (!store::isTerminal(r.state))
        return {};
    QString signal;
    if (r.signal && sigabbrev_np(*r.signal))
        signal = QStringLiteral("SIG") + QLatin1String(sigabbrev_np(*r.signal));
    QJsonObject ev{{"type", "exit"},
                   {"status", store::toString(r.state)},
                   {"exitCode", r.exitCode ? QJsonValue(*r.exitCode) : QJsonValue()},
                   {"signal", signal.isEmpty() ? QJsonValue() : QJsonValue(signal)},
                   {"durationMs", r.durationMs ? QJsonValue(*r.durationMs) : QJsonValue()},
                   {"createdFiles", QJsonArray::fromStringList(r.createdFiles)},
                   {"modifiedFiles", QJsonArray::fromStringList(r.modifiedFiles)},
                   {"deletedFiles", QJsonArray::fromStringList(r.deletedFiles)}};
    if (!r.statusReason.isEmpty())
        ev.insert(QStringLiteral("reason"), r.statusReason);
    return ev;
}

ExecutionRoutes::ExecutionRoutes(AgentContext* context, QObject* parent)
    : QObject(parent), m_context(context) {}

void ExecutionRoutes::registerRoutes(Router& router) {
    router.add("POST", QStringLiteral("/v1/executions"),
               [this](http::HttpExchange* ex, const Principal& who, const PathParams&) {
                   submit(ex, who);
               });
    router.add(
        "GET", QStringLiteral("/v1/executions"),
        [this](http::HttpExchange* ex, const Principal& who, const PathParams&) { list(ex, who); });
    router.add("GET", QStringLiteral("/v1/executions/{id}"),
               [this](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   store::ExecutionRecord r;
                   if (loadVisible(ex, who, p.value(QStringLiteral("id")), &r))
                       ex->replyJson(200, r.toJson());
               });
    router.add("POST", QStringLiteral("/v1/executions/{id}/cancel"),
               [this](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   store::ExecutionRecord r;
                   if (!loadVisible(ex, who, p.value(QStringLiteral("id")), &r))
                       return;
                   if (auto err = cancel(&r))
                       return ex->replyError(*err);
                   ex->replyJson(200, r.toJson());
               });
    router.add("GET", QStringLiteral("/v1/executions/{id}/log"),
               [this](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   store::ExecutionRecord r;
                   if (loadVisible(ex, who, p.value(QStringLiteral("id")), &r))
                       streamLog(m_context, ex, r.executionId, &exitEventOf, this);
               });
}

std::optional<Error> ExecutionRoutes::cancel(store::ExecutionRecord* r) {
    npu::BrokerJobRunner* broker = m_context->npu ? m_context->npu->broker() : nullptr;
    if (r->kind != store::ExecutionKind::Broker || !broker)
        return m_context->manager->cancel(r->executionId, r);
    Error error;
    if (!broker->cancel(r->executionId, &error))
        return error;
    return m_context->manager->get(r->executionId, r);
}

bool ExecutionRoutes::loadVisible(http::HttpExchange* ex, const Principal& who, const QString& id,
                                  store::ExecutionRecord* out) {
    if (auto err = m_context->manager->get(id, out)) {
        ex->replyError(*err);
        return false;
    }
    if (!who.mayUseWorkspace(out->workspaceId)) {
        ex->replyError(404, QStringLiteral("execution_not_found"),
                       QStringLiteral("no execution %1").arg(id));
        return false;
    }
    return true;
}

void ExecutionRoutes::submit(http::HttpExchange* ex, const Principal& who) {
    QJsonObject body;
    if (auto err = parseJsonObject(ex->request().body, &body))
        return ex->replyError(*err);
    const QString wsId = body.value(QLatin1String("workspace")).toString();
    if (wsId.isEmpty())
        return ex->replyError(400, QStringLiteral("invalid_request"),
                              QStringLiteral("\"workspace\" (a workspace id) is required"));
    const workspace::Workspace* ws = m_context->workspaces->find(wsId);
    if (!ws || !who.mayUseWorkspace(wsId))
        return ex->replyError(404, QStringLiteral("workspace_not_found"),
                              QStringLiteral("no workspace %1").arg(wsId));
    execution::ExecRequest req;
    if (auto err = parseExecRequest(m_context, body, *ws, &req))
        return ex->replyError(*err);
    resolveNpuDevices(m_context, ex, std::move(req),
                      [this, wsId](http::HttpExchange* exchange, execution::ExecRequest r) {
                          submitValidated(exchange, wsId, r);
                      });
}

void ExecutionRoutes::submitValidated(http::HttpExchange* ex, const QString& wsId,
                                      const execution::ExecRequest& req) {
    if (!m_context->workspaces->find(wsId))
        return ex->replyError(404, QStringLiteral("workspace_not_found"),
                              QStringLiteral("no workspace %1").arg(wsId));
    store::ExecutionRecord record;
    if (auto err = m_context->manager->submit(req, wsId, &record))
        return ex->replyError(*err);
    ex->replyJson(202, record.toJson());
}

void ExecutionRoutes::list(http::HttpExchange* ex, const Principal& who) {
    const http::HttpRequest& req = ex->request();
    store::ExecutionFilter filter;
    filter.workspaceId = req.queryValue(QStringLiteral("workspace"));
    if (!who.isAgent()) {
        if (!filter.workspaceId.isEmpty() && filter.workspaceId != who.workspaceId)
            return ex->replyJson(200, {{"executions", QJsonArray{}}, {"nextCursor", QJsonValue()}});
        filter.workspaceId = who.workspaceId;
    }
    if (auto err = parseNameList(req.queryValue(QStringLiteral("state")), "state",
                                 store::executionStateFromString, &filter.states))
        return ex->replyError(*err);
    auto readMs = [&](const char* name, std::optional<qint64>* out) {
        bool present = false;
        const QString text = req.queryValue(QLatin1String(name), &present);
        if (!present)
            return true;
        bool ok = false;
        *out = text.toLongLong(&ok);
        return ok;
    };
    if (!readMs("since", &filter.createdFromMs) || !readMs("until", &filter.createdToMs))
        return ex->replyError(400, QStringLiteral("invalid_filter"),
                              QStringLiteral("since/until are ms since the epoch"));
    bool hasLimit = false;
    const QString limit = req.queryValue(QStringLiteral("limit"), &hasLimit);
    if (hasLimit) {
        bool ok = false;
        filter.limit = limit.toInt(&ok);
        if (!ok || filter.limit < 1 || filter.limit > 1000)
            return ex->replyError(400, QStringLiteral("invalid_filter"),
                                  QStringLiteral("limit must be 1..1000"));
    }
    if (auto err = parseNameList(req.queryValue(QStringLiteral("kind")), "kind",
                                 store::executionKindFromString, &filter.kinds))
        return ex->replyError(*err);
    filter.cursor = req.queryValue(QStringLiteral("cursor"));
    store::ExecutionPage page;
    if (auto err = m_context->executions->list(filter, &page))
        return ex->replyError(*err);
    QJsonArray items;
    for (const store::ExecutionRecord& r : page.items) {
        store::ExecutionRecord live = r;
        m_context->manager->get(r.executionId, &live);
        items.append(live.toJson());
    }
    ex->replyJson(200, {{"executions", items},
                        {"nextCursor",
                         page.nextCursor.isEmpty() ? QJsonValue() : QJsonValue(page.nextCursor)}});
}

void ExecutionRoutes::streamLog(AgentContext* context, http::HttpExchange* ex, const QString& id,
                                std::function<QJsonObject(const store::ExecutionRecord&)> exitOf,
                                QObject* parent) {
    const http::HttpRequest& req = ex->request();
    qint64 offset = 0;
    if (auto err = http::ResponseStream::parseOffset(req, &offset))
        return ex->replyError(*err);
    // Format: `format=frames|ndjson` wins; otherwise an Accept naming the framed media type.
    bool hasFormat = false;
    const QString formatText = req.queryValue(QStringLiteral("format"), &hasFormat);
    LogStreamFormat format = LogStreamFormat::Ndjson;
    if (hasFormat) {
        if (formatText == QLatin1String("frames"))
            format = LogStreamFormat::Frames;
        else if (formatText != QLatin1String("ndjson"))
            return ex->replyError(400, QStringLiteral("invalid_format"),
                                  QStringLiteral("format must be ndjson or frames"));
    } else if (req.header("accept").contains(logframes::kMediaType)) {
        format = LogStreamFormat::Frames;
    }
    const QString follow = req.queryValue(QStringLiteral("follow"));
    const bool following = follow == QLatin1String("true") || follow == QLatin1String("1");
    store::LogInfo info;
    if (!context->logs->info(id, &info) && info.finished && offset > info.endOffset)
        return ex->replyError(400, QStringLiteral("invalid_offset"),
                              QStringLiteral("offset %1 is past the end of the log (%2)")
                                  .arg(offset)
                                  .arg(info.endOffset));
    execution::ExecutionManager* manager = context->manager;
    auto exitEvent = [manager, id, exitOf]() -> QJsonObject {
        store::ExecutionRecord r;
        if (manager->get(id, &r) || !store::isTerminal(r.state))
            return {};
        return exitOf(r);
    };
    // Egress decisions are replayed from the store before the exit event: by then the record is
    // final, so every decision has been recorded (ManagedRun releases the gateway socket first).
    egress::EgressService* egress = context->egress;
    auto egressEvents = [egress, id]() -> QList<QJsonObject> {
        QList<QJsonObject> events;
        QList<egress::EgressDecision> decisions;
        if (!egress || egress->decisions(id, &decisions))
            return events;
        for (const egress::EgressDecision& d : std::as_const(decisions))
            events.append(egress::EgressService::eventOf(d));
        return events;
    };
    auto* session = new LogStreamSession(ex, context->logs, id, offset, following, exitEvent,
                                         egressEvents, format, parent);
    QPointer<LogStreamSession> guard(session);
    auto onFinished = [guard, id](const QString& finished) {
        if (guard && finished == id)
            guard->onExecutionFinished();
    };
    connect(manager, &execution::ExecutionManager::executionFinished, session, onFinished);
    if (npu::BrokerJobRunner* broker = context->npu ? context->npu->broker() : nullptr)
        connect(broker, &npu::BrokerJobRunner::jobFinished, session, onFinished);
    // A final execution that never produced a log (cancelled while queued, setup failed).
    store::ExecutionRecord r;
    if (!manager->get(id, &r) && store::isTerminal(r.state) && context->logs->info(id, &info))
        session->onExecutionFinished();
}

} // namespace runbox::api
