#include "agent/npu/BrokerJobRunner.h"

#include "agent/npu/BrokerEnvironment.h"
#include "agent/npu/BrokerInput.h"
#include "agent/npu/BrokerOutputs.h"
#include "agent/sandbox/SandboxUser.h"
#include "agent/workspace/WorkspaceFs.h"

#include <QFileInfo>
#include <QMetaObject>
#include <QRegularExpression>
#include <QSet>
#include <cstdio>

namespace runbox::npu {

namespace {

constexpr int kHostQueue = -1;

Error badInput(const QString& message) {
    return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_input"), message};
}

} // namespace

struct BrokerJobRunner::Workspace {
    std::shared_ptr<const workspace::WorkspaceFs> fs;
    std::optional<workspace::WorkspaceSnapshot> before; ///< written by the pool before start
    bool recorded = false;
};

BrokerJobRunner::BrokerJobRunner(WorkloadCatalog catalog, ChipReservations* reservations,
                                 BrokerOptions options, QObject* parent)
    : QObject(parent), m_catalog(std::move(catalog)), m_reservations(reservations),
      m_options(std::move(options)) {
    m_pool.setMaxThreadCount(2);
    if (!m_reservations)
        m_reservations = new ChipReservations(ChipBusyPolicy::Queue, this);
    connect(m_reservations, &ChipReservations::granted, this,
            [this](const QString& holder, const QList<int>&) { onGranted(holder); });
}

BrokerJobRunner::~BrokerJobRunner() {
    shutdown();
    m_pool.waitForDone(); // its results are posted to this object: dropped once it is gone
}

BrokerJob* BrokerJobRunner::submit(const BrokerJobRequest& request, Error* error) {
    if (!m_options.store) {
        *error = Error{ErrorKind::Unavailable, QStringLiteral("broker_store_unavailable"),
                       QStringLiteral("the broker has no execution store to record jobs in")};
        return nullptr;
    }
    const Workload* workload = m_catalog.find(request.workloadId);
    if (!workload) {
        *error = Error{ErrorKind::InvalidArgument, QStringLiteral("unknown_workload"),
                       QStringLiteral("no workload \"%1\" in the operator's catalog")
                           .arg(request.workloadId.left(128))};
        return nullptr;
    }
    const QString workspace = QFileInfo(request.workspaceDir).canonicalFilePath();
    if (workspace.isEmpty() || !QFileInfo(workspace).isDir()) {
        *error = Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_workspace"),
                       QStringLiteral("the workspace directory does not exist")};
        return nullptr;
    }
    auto root = workspace::WorkspaceFs::open(workspace);
    if (!root) {
        *error = Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_workspace"),
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

    static const QRegularExpression idPattern(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"));
    if (!request.jobId.isEmpty() && !idPattern.match(request.jobId).hasMatch()) {
        *error = Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_job_id"),
                       QStringLiteral("a job id is 1-128 of [A-Za-z0-9._-]")};
        return nullptr;
    }
    QList<int> chips = request.npuDevices.value_or(workload->npuDevices);
    chips = QSet<int>(chips.cbegin(), chips.cend()).values();
    std::sort(chips.begin(), chips.end());
    std::optional<sandbox::SandboxUser> user;
    if (sandbox::agentIsPrivileged()) {
        if (request.workspaceUid == 0) {
            *error = Error{ErrorKind::Unavailable, QStringLiteral("sandbox_user_unavailable"),
                           QStringLiteral("a privileged agent runs broker jobs as the "
                                          "workspace's own uid, and this workspace has none")};
            return nullptr;
        }
        user = sandbox::SandboxUser{};
        user->uid = request.workspaceUid;
        if (m_options.deviceGroupsOf)
            user->groups = m_options.deviceGroupsOf(chips);
    }
    // Recorded last, once nothing else can refuse the job: a record is kept forever.
    QString id;
    if (auto err = m_options.store->create(
            {request.jobId, request.workspaceId, workload->id, chips, request.inputs}, &id)) {
        *error = *err;
        return nullptr;
    }

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
    spec.user = user;
    auto* job = new BrokerJob(std::move(spec), this);
    m_jobs.insert(id, job);
    m_order.append(id);
    auto tracked = std::make_shared<Workspace>();
    tracked->fs = std::make_shared<const workspace::WorkspaceFs>(std::move(root.value()));
    m_workspaces.insert(id, tracked);
    BrokerJobStore* store = m_options.store;
    connect(job, &BrokerJob::started, this, [store, job] { store->markRunning(*job); });
    connect(job, &BrokerJob::output, this,
            [store, id](BrokerJob::Stream stream, const QByteArray& data) {
                store->append(id, stream, data);
            });
    connect(job, &BrokerJob::finished, this, [this, job] { onJobFinished(job); });

    const ChipReservations::Result result = m_reservations->acquire(
        id, chips.isEmpty() ? QList<int>{kHostQueue} : chips, ChipBusyPolicy::Queue);
    if (result.outcome == ChipReservations::Outcome::Granted)
        startAfterSnapshot(job);
    else if (result.outcome == ChipReservations::Outcome::Refused)
        job->cancel(); // cannot happen with Queue; keeps the job from hanging if it did
    return job;
}

void BrokerJobRunner::startAfterSnapshot(BrokerJob* job) {
    const std::shared_ptr<Workspace> tracked = m_workspaces.value(job->id());
    if (!tracked) {
        job->start();
        return;
    }
    QPointer<BrokerJob> guard(job);
    m_pool.start([this, tracked, guard] {
        std::optional<workspace::WorkspaceSnapshot> before = BrokerOutputs::before(*tracked->fs);
        QMetaObject::invokeMethod(
            this,
            [this, tracked, guard, before = std::move(before)]() mutable {
                tracked->before = std::move(before);
                // Cancelled meanwhile: it has ended (and released its chips) already.
                if (guard && guard->state() == BrokerJob::State::Queued && !m_shuttingDown)
                    guard->start();
            },
            Qt::QueuedConnection);
    });
}

void BrokerJobRunner::onGranted(const QString& holder) {
    BrokerJob* job = m_jobs.value(holder);
    if (!job)
        return; // an execution's grant, not ours
    if (job->state() == BrokerJob::State::Queued)
        startAfterSnapshot(job);
    else
        m_reservations->release(holder); // cancelled while the grant was in flight
}

void BrokerJobRunner::onJobFinished(BrokerJob* job) {
    if (m_reservations)
        m_reservations->release(job->id());
    const std::shared_ptr<Workspace> tracked = m_workspaces.value(job->id());
    if (!tracked || m_shuttingDown || !job->startedAt().isValid()) {
        record(job, {}); // never ran (nothing to compare), or the agent is going: no walk
        return;
    }
    QPointer<BrokerJob> guard(job);
    m_pool.start([this, tracked, guard] {
        BrokerJobFiles files = BrokerOutputs::after(*tracked->fs, tracked->before);
        QMetaObject::invokeMethod(
            this,
            [this, guard, files = std::move(files)] {
                if (guard)
                    record(guard, files);
            },
            Qt::QueuedConnection);
    });
}

void BrokerJobRunner::record(BrokerJob* job, const BrokerJobFiles& files) {
    const std::shared_ptr<Workspace> tracked = m_workspaces.take(job->id());
    if (!tracked || tracked->recorded)
        return;
    tracked->recorded = true;
    if (m_options.store)
        if (auto err = m_options.store->finish(*job, files))
            std::fprintf(stderr, "warning: npu broker: job %s: end not recorded: %s\n",
                         qPrintable(job->id()), qPrintable(err->message));
    Q_EMIT jobFinished(job->id());
    forgetOldJobs();
}

void BrokerJobRunner::forgetOldJobs() {
    int finished = 0;
    for (const QString& id : std::as_const(m_order))
        if (m_jobs.value(id)->isFinal() && !m_workspaces.contains(id))
            ++finished;
    for (auto it = m_order.begin(); it != m_order.end() && finished > m_options.maxFinishedJobs;) {
        BrokerJob* job = m_jobs.value(*it);
        if (job->isFinal() && !m_workspaces.contains(*it)) { // recorded final
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

std::optional<Error> BrokerJobRunner::record(const QString& id, store::ExecutionRecord* out) const {
    if (!m_options.store)
        return Error{ErrorKind::NotFound, QStringLiteral("job_not_found"),
                     QStringLiteral("no NPU job %1").arg(id.left(128))};
    if (auto err = m_options.store->get(id, out))
        return err;
    if (const BrokerJob* job = m_jobs.value(id); job && !store::isTerminal(out->state))
        out->logBytes.droppedBytes = job->droppedBytes();
    return std::nullopt;
}

bool BrokerJobRunner::cancel(const QString& id, Error* error) {
    if (BrokerJob* job = m_jobs.value(id)) {
        job->cancel();
        return true;
    }
    store::ExecutionRecord ignored;
    if (auto err = record(id, &ignored)) {
        *error = *err;
        return false;
    }
    return true; // a job of an earlier agent: final (or lost) already
}

void BrokerJobRunner::shutdown() {
    m_shuttingDown = true;
    for (const QString& id : QStringList(m_order)) {
        BrokerJob* job = m_jobs.value(id);
        if (job && !job->isFinal())
            job->killNow();
        else if (job && m_workspaces.contains(id))
            record(job, {}); // its outputs were still being hashed: recorded without them
    }
}

} // namespace runbox::npu
