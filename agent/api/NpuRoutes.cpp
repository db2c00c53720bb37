#include "agent/api/NpuRoutes.h"

#include "agent/api/ApiService.h"
#include "agent/api/ExecutionRoutes.h"
#include "agent/execution/ExecRequest.h"
#include "agent/npu/BrokerJobRunner.h"
#include "agent/npu/BrokerJobStore.h"
#include "agent/npu/NpuService.h"

#include <QJsonArray>
#include <QPointer>

#include <algorithm>

namespace runbox::api {

namespace {

/// The exit event of `/v1/npu/jobs/{id}/log`: an execution's (exitEventOf) plus `truncated`
/// (output past the job's maxOutputBytes was dropped).
QJsonObject brokerExitEvent(const store::ExecutionRecord& record) {
    QJsonObject event = exitEventOf(record);
    if (!event.isEmpty())
        event.insert(QStringLiteral("truncated"), record.logBytes.droppedBytes > 0);
    return event;
}

bool isTrue(const QString& value) {
    return value == QLatin1String("true") || value == QLatin1String("1");
}

/// One chip's holder as `GET /v1/npu/chips` names it: `{"chip", "execution": ID}` for an
/// execution (reservation holder `exec:ID`, docs/npu.md), else `{"chip", "brokerJob": ID}`.
QJsonObject holderJson(int chip, const QString& holder) {
    static const QLatin1String kExecution("exec:");
    if (holder.startsWith(kExecution))
        return {{"chip", chip}, {"execution", holder.mid(kExecution.size())}};
    return {{"chip", chip}, {"brokerJob", holder}};
}

} // namespace

NpuRoutes::NpuRoutes(AgentContext* context, QObject* parent)
    : QObject(parent), m_context(context) {}

void NpuRoutes::registerRoutes(Router& router) {
    if (!m_context->npu)
        return;
    router.add("GET", QStringLiteral("/v1/npu/chips"),
               [this](http::HttpExchange* ex, const Principal& who, const PathParams&) {
                   chips(ex, who);
               });
    if (!m_context->npu->broker())
        return;
    router.add(
        "GET", QStringLiteral("/v1/npu/workloads"),
        [this](http::HttpExchange* ex, const Principal&, const PathParams&) {
            ex->replyJson(200, {{"workloads", m_context->npu->broker()->catalog().toJson()}});
        });
    router.add("POST", QStringLiteral("/v1/npu/jobs"),
               [this](http::HttpExchange* ex, const Principal& who, const PathParams&) {
                   submitJob(ex, who);
               });
    router.add("GET", QStringLiteral("/v1/npu/jobs"),
               [this](http::HttpExchange* ex, const Principal& who, const PathParams&) {
                   listJobs(ex, who);
               });
    router.add("GET", QStringLiteral("/v1/npu/jobs/{id}"),
               [this](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   store::ExecutionRecord r;
                   if (findVisible(ex, who, p.value(QStringLiteral("id")), &r))
                       ex->replyJson(200, npu::BrokerJobStore::jobJson(r));
               });
    router.add("GET", QStringLiteral("/v1/npu/jobs/{id}/log"),
               [this](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   store::ExecutionRecord r;
                   if (findVisible(ex, who, p.value(QStringLiteral("id")), &r))
                       ExecutionRoutes::streamLog(m_context, ex, r.executionId, &brokerExitEvent,
                                                  this);
               });
    router.add("GET", QStringLiteral("/v1/npu/jobs/{id}/result"),
               [this](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   store::ExecutionRecord r;
                   if (findVisible(ex, who, p.value(QStringLiteral("id")), &r))
                       result(ex, r);
               });
    router.add("POST", QStringLiteral("/v1/npu/jobs/{id}/cancel"),
               [this](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   store::ExecutionRecord r;
                   if (!findVisible(ex, who, p.value(QStringLiteral("id")), &r))
                       return;
                   npu::BrokerJobRunner* broker = m_context->npu->broker();
                   Error error;
                   if (!broker->cancel(r.executionId, &error))
                       return ex->replyError(error);
                   if (auto err = broker->record(r.executionId, &r))
                       return ex->replyError(*err);
                   ex->replyJson(200, npu::BrokerJobStore::jobJson(r));
               });
}

void NpuRoutes::chips(http::HttpExchange* ex, const Principal& who) {
    const bool refresh = isTrue(ex->request().queryValue(QStringLiteral("refresh")));
    QPointer<http::HttpExchange> guard(ex);
    npu::NpuService* npu = m_context->npu;
    const bool agent = who.isAgent();
    npu->snapshot(refresh, ex, [guard, npu, agent](const npu::NpuSnapshot& snapshot) {
        if (!guard)
            return;
        QJsonObject body = snapshot.toJson();
        // QMap: ascending chip order. -1 is the broker's host queue, not a chip.
        const QMap<int, QString> holders = npu->reservations()->holders();
        QJsonArray heldJson;
        QJsonArray holdersJson;
        for (auto it = holders.cbegin(); it != holders.cend(); ++it) {
            if (it.key() < 0)
                continue;
            heldJson.append(it.key());
            holdersJson.append(holderJson(it.key(), it.value()));
        }
        body.insert(QStringLiteral("held"), heldJson);
        if (agent) // who holds a chip is the operator's to see, not another tenant's
            body.insert(QStringLiteral("holders"), holdersJson);
        guard->replyJson(200, body);
    });
}

bool NpuRoutes::findVisible(http::HttpExchange* ex, const Principal& who, const QString& id,
                            store::ExecutionRecord* out) {
    if (auto err = m_context->npu->broker()->record(id, out)) {
        ex->replyError(*err);
        return false;
    }
    if (!who.mayUseWorkspace(out->workspaceId)) {
        ex->replyError(404, QStringLiteral("job_not_found"),
                       QStringLiteral("no NPU job %1").arg(id.left(128)));
        return false;
    }
    return true;
}

void NpuRoutes::submitJob(http::HttpExchange* ex, const Principal& who) {
    QJsonObject body;
    if (auto err = parseJsonObject(ex->request().body, &body))
        return ex->replyError(*err);
    static const QStringList known = {"workloadId", "workspace", "inputs", "npuDevices", "jobId"};
    if (auto err = execution::refuseUnknownFields(body, known))
        return ex->replyError(*err);
    const QJsonValue workload = body.value(QLatin1String("workloadId"));
    if (!workload.isString() || workload.toString().isEmpty())
        return ex->replyError(400, QStringLiteral("invalid_request"),
                              QStringLiteral("\"workloadId\" (a string) is required"));
    const QString wsId = body.value(QLatin1String("workspace")).toString();
    if (wsId.isEmpty())
        return ex->replyError(400, QStringLiteral("invalid_request"),
                              QStringLiteral("\"workspace\" (a workspace id) is required"));
    if (!m_context->workspaces->find(wsId) || !who.mayUseWorkspace(wsId))
        return ex->replyError(404, QStringLiteral("workspace_not_found"),
                              QStringLiteral("no workspace %1").arg(wsId));
    const QJsonValue inputs = body.value(QLatin1String("inputs"));
    if (!inputs.isUndefined() && !inputs.isNull() && !inputs.isObject())
        return ex->replyError(400, QStringLiteral("invalid_input"),
                              QStringLiteral("\"inputs\" must be an object of NAME: path"));
    const QJsonValue jobId = body.value(QLatin1String("jobId"));
    if (!jobId.isUndefined() && !jobId.isString())
        return ex->replyError(400, QStringLiteral("invalid_job_id"),
                              QStringLiteral("\"jobId\" must be a string"));
    npu::BrokerJobRequest request;
    request.workloadId = workload.toString();
    request.inputs = inputs.toObject();
    request.jobId = jobId.toString();

    auto submit = [this, wsId](http::HttpExchange* exchange, npu::BrokerJobRequest request) {
        const workspace::Workspace* ws = m_context->workspaces->find(wsId);
        if (!ws)
            return exchange->replyError(404, QStringLiteral("workspace_not_found"),
                                        QStringLiteral("no workspace %1").arg(wsId));
        request.workspaceId = wsId;
        request.workspaceDir = ws->directory;
        request.workspaceUid = ws->uid.value_or(0);
        npu::BrokerJobRunner* broker = m_context->npu->broker();
        Error error;
        npu::BrokerJob* job = broker->submit(request, &error);
        if (!job)
            return exchange->replyError(error);
        store::ExecutionRecord record;
        if (auto err = broker->record(job->id(), &record))
            return exchange->replyError(*err);
        exchange->replyJson(202, npu::BrokerJobStore::jobJson(record));
    };
    const QJsonValue devices = body.value(QLatin1String("npuDevices"));
    if (devices.isUndefined() || devices.isNull())
        return submit(ex, request);
    QPointer<http::HttpExchange> guard(ex);
    m_context->npu->resolveSelection(
        devices, ex,
        [guard, submit, request](std::optional<Error> err, const QList<int>& chips) mutable {
            if (!guard)
                return;
            if (err)
                return guard->replyError(*err);
            request.npuDevices = chips;
            submit(guard, request);
        });
}

void NpuRoutes::listJobs(http::HttpExchange* ex, const Principal& who) {
    npu::BrokerJobStore* store = m_context->npu->broker()->store();
    QList<store::ExecutionRecord> records;
    if (!store)
        return ex->replyJson(200, {{"jobs", QJsonArray{}}});
    if (auto err = store->list(who.isAgent() ? QString() : who.workspaceId, 1000, &records))
        return ex->replyError(*err);
    QJsonArray jobs;
    for (const store::ExecutionRecord& record : std::as_const(records))
        if (who.mayUseWorkspace(record.workspaceId))
            jobs.append(npu::BrokerJobStore::jobJson(record));
    ex->replyJson(200, {{"jobs", jobs}});
}

void NpuRoutes::result(http::HttpExchange* ex, const store::ExecutionRecord& record) {
    if (!store::isTerminal(record.state))
        return ex->replyError(409, QStringLiteral("job_not_finished"),
                              QStringLiteral("NPU job %1 is %2: its result exists once it has "
                                             "ended")
                                  .arg(record.executionId, store::toString(record.state)));
    QList<store::ExecutionOutput> outputs;
    if (auto err = m_context->npu->broker()->store()->outputs(record.executionId, &outputs))
        return ex->replyError(*err);
    QJsonArray list;
    for (const store::ExecutionOutput& output : std::as_const(outputs))
        list.append(output.toJson());
    ex->replyJson(200, {{"id", record.executionId},
                        {"state", store::toString(record.state)},
                        {"outputs", list},
                        {"createdFiles", QJsonArray::fromStringList(record.createdFiles)},
                        {"modifiedFiles", QJsonArray::fromStringList(record.modifiedFiles)},
                        {"deletedFiles", QJsonArray::fromStringList(record.deletedFiles)}});
}

} // namespace runbox::api
