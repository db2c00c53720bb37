#include "agent/api/NpuRoutes.h"

#include "agent/api/ApiService.h"
#include "agent/api/BrokerLogSession.h"
#include "agent/npu/BrokerJobRunner.h"
#include "agent/npu/NpuService.h"

#include <QJsonArray>
#include <QPointer>

#include <algorithm>

namespace runbox::api {

namespace {

bool isTrue(const QString& value) {
    return value == QLatin1String("true") || value == QLatin1String("1");
}

} // namespace

NpuRoutes::NpuRoutes(AgentContext* context, QObject* parent)
    : QObject(parent), m_context(context) {}

void NpuRoutes::registerRoutes(Router& router) {
    if (!m_context->npu)
        return;
    router.add("GET", QStringLiteral("/v1/npu/chips"),
               [this](http::HttpExchange* ex, const Principal&, const PathParams&) { chips(ex); });
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
                   if (npu::BrokerJob* job = findVisible(ex, who, p.value(QStringLiteral("id"))))
                       ex->replyJson(200, jobJson(*job));
               });
    router.add("GET", QStringLiteral("/v1/npu/jobs/{id}/log"),
               [this](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   if (npu::BrokerJob* job = findVisible(ex, who, p.value(QStringLiteral("id"))))
                       streamLog(ex, job);
               });
    router.add("POST", QStringLiteral("/v1/npu/jobs/{id}/cancel"),
               [this](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   npu::BrokerJob* job = findVisible(ex, who, p.value(QStringLiteral("id")));
                   if (!job)
                       return;
                   ApiError error;
                   if (!m_context->npu->broker()->cancel(job->id(), &error))
                       return ex->replyError(error);
                   ex->replyJson(200, jobJson(*job));
               });
}

void NpuRoutes::chips(http::HttpExchange* ex) {
    const bool refresh = isTrue(ex->request().queryValue(QStringLiteral("refresh")));
    QPointer<http::HttpExchange> guard(ex);
    npu::NpuService* npu = m_context->npu;
    npu->snapshot(refresh, ex, [guard, npu](const npu::NpuSnapshot& snapshot) {
        if (!guard)
            return;
        QJsonObject body = snapshot.toJson();
        QList<int> held = npu->reservations()->heldChips().values();
        std::sort(held.begin(), held.end());
        QJsonArray heldJson;
        for (int chip : held)
            if (chip >= 0)
                heldJson.append(chip);
        body.insert(QStringLiteral("held"), heldJson);
        guard->replyJson(200, body);
    });
}

QJsonObject NpuRoutes::jobJson(const npu::BrokerJob& job) const {
    QJsonObject o = job.toJson();
    o.insert(QStringLiteral("workspace"), m_jobWorkspace.value(job.id()));
    return o;
}

npu::BrokerJob* NpuRoutes::findVisible(http::HttpExchange* ex, const Principal& who,
                                       const QString& id) {
    npu::BrokerJob* job = m_context->npu->broker()->job(id);
    if (!job || !who.mayUseWorkspace(m_jobWorkspace.value(id))) {
        ex->replyError(404, QStringLiteral("job_not_found"),
                       QStringLiteral("no NPU job %1").arg(id.left(128)));
        return nullptr;
    }
    return job;
}

void NpuRoutes::submitJob(http::HttpExchange* ex, const Principal& who) {
    QJsonObject body;
    if (auto err = parseJsonObject(ex->request().body, &body))
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
        request.workspaceDir = ws->directory;
        request.workspaceUid = ws->uid.value_or(0);
        ApiError error;
        npu::BrokerJob* job = m_context->npu->broker()->submit(request, &error);
        if (!job)
            return exchange->replyError(error);
        m_jobWorkspace.insert(job->id(), wsId);
        exchange->replyJson(202, jobJson(*job));
    };
    const QJsonValue devices = body.value(QLatin1String("npuDevices"));
    if (devices.isUndefined() || devices.isNull())
        return submit(ex, request);
    QPointer<http::HttpExchange> guard(ex);
    m_context->npu->resolveSelection(
        devices, ex,
        [guard, submit, request](std::optional<ApiError> err, const QList<int>& chips) mutable {
            if (!guard)
                return;
            if (err)
                return guard->replyError(*err);
            request.npuDevices = chips;
            submit(guard, request);
        });
}

void NpuRoutes::listJobs(http::HttpExchange* ex, const Principal& who) {
    npu::BrokerJobRunner* broker = m_context->npu->broker();
    // Forget the workspace of jobs the runner no longer keeps.
    for (auto it = m_jobWorkspace.begin(); it != m_jobWorkspace.end();)
        it = broker->job(it.key()) ? std::next(it) : m_jobWorkspace.erase(it);
    QJsonArray jobs;
    for (const npu::BrokerJob* job : broker->jobs())
        if (who.mayUseWorkspace(m_jobWorkspace.value(job->id())))
            jobs.append(jobJson(*job));
    ex->replyJson(200, {{"jobs", jobs}});
}

void NpuRoutes::streamLog(http::HttpExchange* ex, npu::BrokerJob* job) {
    const http::HttpRequest& req = ex->request();
    bool hasOffset = false;
    const QString offsetText = req.queryValue(QStringLiteral("offset"), &hasOffset);
    qint64 offset = 0;
    if (hasOffset) {
        bool ok = false;
        offset = offsetText.toLongLong(&ok);
        if (!ok || offset < 0)
            return ex->replyError(400, QStringLiteral("invalid_offset"),
                                  QStringLiteral("offset must be a non-negative integer"));
    }
    const qint64 end = job->streamSize(npu::BrokerJob::Stream::Stdout) +
                       job->streamSize(npu::BrokerJob::Stream::Stderr);
    if (job->isFinal() && !job->truncated() && offset > end)
        return ex->replyError(
            400, QStringLiteral("invalid_offset"),
            QStringLiteral("offset %1 is past the end of the log (%2)").arg(offset).arg(end));
    new BrokerLogSession(ex, job, offset, isTrue(req.queryValue(QStringLiteral("follow"))), this);
}

} // namespace runbox::api
