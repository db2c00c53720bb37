#include "agent/npu/BrokerJobRunner.h"

#include "agent/npu/BrokerEnvironment.h"
#include "agent/npu/BrokerInput.h"
#include "agent/sandbox/SandboxUser.h"
#include "agent/workspace/WorkspaceFs.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>
#include <QUuid>

namespace runbox::npu {

namespace {

constexpr int kHostQueue = -1;

ApiError badInput(const QString& message) {
    return ApiError{400, QStringLiteral("invalid_input"), message};
}

} // namespace

BrokerJobRunner::BrokerJobRunner(WorkloadCatalog catalog, ChipReservations* reservations,
                                 BrokerOptions options, QObject* parent)
    : QObject(parent), m_catalog(std::move(catalog)), m_reservations(reservations),
      m_options(std::move(options)) {
    if (!m_reservations)
        m_reservations = new ChipReservations(ChipBusyPolicy::Queue, this);
    connect(m_reservations, &ChipReservations::granted, this,
            [this](const QString& holder, const QList<int>&) { onGranted(holder); });
}

BrokerJobRunner::~BrokerJobRunner() {
    shutdown();
}

BrokerJob* BrokerJobRunner::submit(const BrokerJobRequest& request, ApiError* error) {
    const Workload* workload = m_catalog.find(request.workloadId);
    if (!workload) {
        *error = ApiError{400, QStringLiteral("unknown_workload"),
                          QStringLiteral("no workload \"%1\" in the operator's catalog")
                              .arg(request.workloadId.left(128))};
        return nullptr;
    }
    const QString workspace = QFileInfo(request.workspaceDir).canonicalFilePath();
    if (workspace.isEmpty() || !QFileInfo(workspace).isDir()) {
        *error = ApiError{400, QStringLiteral("invalid_workspace"),
                          QStringLiteral("the workspace directory does not exist")};
        return nullptr;
    }
    const auto root = workspace::WorkspaceFs::open(workspace);
    if (!root) {
        *error = ApiError{400, QStringLiteral("invalid_workspace"),
                          QStringLiteral("the workspace directory cannot be opened")};
        return nullptr;
    }
    QMap<QString, QString> resolved;
    std::vector<BrokerInput> pinned;
    for (auto it = request.inputs.constBegin(); it != request.inputs.constEnd(); ++it) {
        if (!workload->inputs.contains(it.key())) {
            *error = badInput(QStringLiteral("workload %1 takes no input \"%2\"")
                                  .arg(workload->id, it.key().left(64)));
            return nullptr;
        }
        if (!it.value().isString()) {
            *error = badInput(
                QStringLiteral("input %1 must be a workspace-relative path string").arg(it.key()));
            return nullptr;
        }
    }
    for (const QString& name : workload->inputs) {
        if (!request.inputs.contains(name)) {
            *error =
                badInput(QStringLiteral("workload %1 needs input \"%2\"").arg(workload->id, name));
            return nullptr;
        }
        QString why;
        std::optional<BrokerInput> input =
            BrokerInput::open(root->rootFd(), request.inputs.value(name).toString(), &why);
        if (!input) {
            *error = badInput(QStringLiteral("input %1: %2").arg(name, why));
            return nullptr;
        }
        resolved.insert(name, input->procPath());
        pinned.push_back(std::move(*input));
    }
    const QStringList argv =
        workload->expand(workspace, resolved, m_options.baseEnvironment, error);
    if (argv.isEmpty())
        return nullptr;

    QString id = request.jobId;
    if (id.isEmpty())
        id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    static const QRegularExpression idPattern(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"));
    if (!idPattern.match(id).hasMatch()) {
        *error = ApiError{400, QStringLiteral("invalid_job_id"),
                          QStringLiteral("a job id is 1-128 of [A-Za-z0-9._-]")};
        return nullptr;
    }
    if (m_jobs.contains(id)) {
        *error = ApiError{409, QStringLiteral("duplicate_job"),
                          QStringLiteral("job %1 already exists").arg(id)};
        return nullptr;
    }
    QList<int> chips = request.npuDevices.value_or(workload->npuDevices);
    chips = QSet<int>(chips.cbegin(), chips.cend()).values();
    std::sort(chips.begin(), chips.end());

    BrokerJob::Spec spec;
    spec.id = id;
    spec.workloadId = workload->id;
    spec.workspace = workspace;
    spec.argv = argv;
    spec.environment = BrokerEnvironment::forJob(m_options.baseEnvironment, workspace, id, chips);
    spec.chips = chips;
    spec.timeoutMs = workload->timeoutMs > 0 ? workload->timeoutMs : m_options.defaultTimeoutMs;
    spec.killGraceMs = m_options.killGraceMs;
    spec.maxOutputBytes = m_options.maxOutputBytes;
    spec.inputs = std::move(pinned);
    if (sandbox::agentIsPrivileged()) {
        if (request.workspaceUid == 0) {
            *error = ApiError{503, QStringLiteral("sandbox_user_unavailable"),
                              QStringLiteral("a privileged agent runs broker jobs as the "
                                             "workspace's own uid, and this workspace has none")};
            return nullptr;
        }
        sandbox::SandboxUser user;
        user.uid = request.workspaceUid;
        if (m_options.deviceGroupsOf)
            user.groups = m_options.deviceGroupsOf(chips);
        spec.user = user;
    }
    auto* job = new BrokerJob(std::move(spec), this);
    m_jobs.insert(id, job);
    m_order.append(id);
    connect(job, &BrokerJob::finished, this, [this, job] { onJobFinished(job); });

    const ChipReservations::Result result = m_reservations->acquire(
        id, chips.isEmpty() ? QList<int>{kHostQueue} : chips, ChipBusyPolicy::Queue);
    if (result.outcome == ChipReservations::Outcome::Granted)
        job->start();
    else if (result.outcome == ChipReservations::Outcome::Refused)
        job->cancel(); // cannot happen with Queue; keeps the job from hanging if it did
    return job;
}

void BrokerJobRunner::onGranted(const QString& holder) {
    BrokerJob* job = m_jobs.value(holder);
    if (!job)
        return; // an execution's grant, not ours
    if (job->state() == BrokerJob::State::Queued)
        job->start();
    else
        m_reservations->release(holder); // cancelled while the grant was in flight
}

void BrokerJobRunner::onJobFinished(BrokerJob* job) {
    if (m_reservations)
        m_reservations->release(job->id());
    Q_EMIT jobFinished(job->id());
    forgetOldJobs();
}

void BrokerJobRunner::forgetOldJobs() {
    int finished = 0;
    for (const QString& id : std::as_const(m_order))
        if (m_jobs.value(id)->isFinal())
            ++finished;
    for (auto it = m_order.begin(); it != m_order.end() && finished > m_options.maxFinishedJobs;) {
        BrokerJob* job = m_jobs.value(*it);
        if (job->isFinal()) {
            m_jobs.remove(*it);
            job->deleteLater();
            it = m_order.erase(it);
            --finished;
        } else {
            ++it;
        }
    }
}

BrokerJob* BrokerJobRunner::job(const QString& id) const {
    return m_jobs.value(id);
}

QList<BrokerJob*> BrokerJobRunner::jobs() const {
    QList<BrokerJob*> list;
    for (const QString& id : m_order)
        list.append(m_jobs.value(id));
    return list;
}

bool BrokerJobRunner::cancel(const QString& id, ApiError* error) {
    BrokerJob* job = m_jobs.value(id);
    if (!job) {
        *error = ApiError{404, QStringLiteral("job_not_found"),
                          QStringLiteral("no NPU job %1").arg(id.left(128))};
        return false;
    }
    job->cancel();
    return true;
}

void BrokerJobRunner::shutdown() {
    for (const QString& id : std::as_const(m_order)) {
        BrokerJob* job = m_jobs.value(id);
        if (job && !job->isFinal())
            job->killNow();
    }
}

} // namespace runbox::npu
