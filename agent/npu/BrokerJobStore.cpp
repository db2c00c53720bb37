#include "agent/npu/BrokerJobStore.h"

#include "agent/store/LogStore.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>

#include <csignal>
#include <cstdio>

namespace runbox::npu {

namespace {

constexpr int kMaxListed = 1000;

QJsonValue nullable(const QString& text) {
    return text.isEmpty() ? QJsonValue() : QJsonValue(text);
}

template <typename T> QJsonValue nullable(const std::optional<T>& value) {
    return value ? QJsonValue(static_cast<double>(*value)) : QJsonValue();
}

QJsonValue iso(const std::optional<qint64>& ms) {
    return ms ? QJsonValue(store::isoTimestamp(*ms)) : QJsonValue();
}

Error jobNotFound(const QString& id) {
    return Error{ErrorKind::NotFound, QStringLiteral("job_not_found"),
                 QStringLiteral("no NPU job %1").arg(id.left(128))};
}

/// Field 22 of /proc/<pid>/stat (start time, clock ticks after boot; proc(5)), or empty.
QString processStartOf(qint64 pid) {
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (pid <= 1 || !stat.open(QIODevice::ReadOnly))
        return {};
    const QByteArray text = stat.read(4096);
    const int paren = text.lastIndexOf(')');
    const QList<QByteArray> fields = text.mid(paren + 2).split(' ');
    return paren < 0 || fields.size() < 20 ? QString() : QString::fromLatin1(fields[19]);
}

QString bootId() {
    QFile file(QStringLiteral("/proc/sys/kernel/random/boot_id"));
    return file.open(QIODevice::ReadOnly) ? QString::fromLatin1(file.readAll().trimmed())
                                          : QString();
}

} // namespace

BrokerJobStore::BrokerJobStore(const store::Database& database, store::LogStore* logs)
    : m_records(database), m_outputs(database), m_logs(logs) {}

std::optional<Error> BrokerJobStore::create(const NewJob& job, QString* id) {
    store::NewExecution row;
    row.executionId = job.jobId;
    row.workspaceId = job.workspaceId;
    row.kind = store::ExecutionKind::Broker;
    QJsonArray chips;
    for (int chip : job.chips)
        chips.append(chip);
    row.permissionEpoch = {{"npuDevices", chips}};
    row.provenance = {{"workloadId", job.workloadId}, {"inputs", job.inputs}};
    store::ExecutionRepository::InsertResult inserted;
    if (auto err = m_records.insert(row, &inserted))
        return err;
    if (inserted.duplicate)
        return Error{ErrorKind::Conflict, QStringLiteral("duplicate_job"),
                     QStringLiteral("job %1 already exists (job and execution ids are kept "
                                    "forever)")
                         .arg(job.jobId)};
    *id = inserted.record.executionId;
    if (auto err = m_logs->create(*id, 0)) {
        store::ExecutionOutcome outcome;
        outcome.state = store::ExecutionState::SetupFailed;
        outcome.statusReason = QStringLiteral("the job's log cannot be created: ") + err->message;
        m_records.finish(*id, outcome);
        return err;
    }
    return std::nullopt;
}

void BrokerJobStore::markRunning(const BrokerJob& job) {
    store::ExecutionRecord record;
    if (m_records.get(job.id(), &record))
        return;
    QJsonObject provenance = record.provenance;
    provenance.insert(QStringLiteral("pgid"), static_cast<double>(job.pid()));
    provenance.insert(QStringLiteral("processStart"), processStartOf(job.pid()));
    provenance.insert(QStringLiteral("bootId"), bootId());
    if (auto err = m_records.markRunning(job.id(), job.startedAt().toMSecsSinceEpoch(), provenance))
        std::fprintf(stderr, "warning: npu broker: job %s: %s\n", qPrintable(job.id()),
                     qPrintable(err->message));
}

int BrokerJobStore::endLeftovers() {
    store::ExecutionFilter filter;
    filter.kinds = {store::ExecutionKind::Broker};
    filter.states = {store::ExecutionState::Running};
    filter.limit = kMaxListed;
    store::ExecutionPage page;
    if (m_records.list(filter, &page))
        return 0;
    const QString boot = bootId();
    int killed = 0;
    for (const store::ExecutionRecord& r : std::as_const(page.items)) {
        const qint64 pgid = r.provenance.value(QLatin1String("pgid")).toInteger();
        const QString start = r.provenance.value(QLatin1String("processStart")).toString();
        if (pgid <= 1 || start.isEmpty() || boot.isEmpty() ||
            r.provenance.value(QLatin1String("bootId")).toString() != boot ||
            processStartOf(pgid) != start)
            continue; // gone, or the pid now names another process: leave it alone
        if (::kill(static_cast<pid_t>(-pgid), SIGKILL) == 0) {
            ++killed;
            std::fprintf(stderr,
                         "npu broker: killed the process group %lld of job %s, left running by "
                         "a dead agent\n",
                         static_cast<long long>(pgid), qPrintable(r.executionId));
        }
    }
    return killed;
}

void BrokerJobStore::append(const QString& jobId, BrokerJob::Stream stream,
                            const QByteArray& data) {
    Error error;
    if (m_logs->append(jobId,
                       stream == BrokerJob::Stream::Stdout ? store::LogStream::Stdout
                                                           : store::LogStream::Stderr,
                       data, &error) < 0)
        std::fprintf(stderr, "warning: npu broker: job %s: output lost: %s\n", qPrintable(jobId),
                     qPrintable(error.message));
}

std::optional<Error> BrokerJobStore::finish(const BrokerJob& job, const BrokerJobFiles& files) {
    const QString id = job.id();
    const store::ExecutionState state = stateOf(job.state());
    store::ExecutionRecord record;
    if (auto err = m_records.get(id, &record))
        return err;
    // A job that ran but whose start was not recorded (cannot happen in order; kept legal).
    if (record.state == store::ExecutionState::Queued && job.startedAt().isValid() &&
        !store::isLegalTransition(store::ExecutionState::Queued, state))
        markRunning(job);
    m_logs->finish(id);
    if (auto err = m_outputs.record(id, files.outputs))
        std::fprintf(stderr, "warning: npu broker: job %s: outputs not recorded: %s\n",
                     qPrintable(id), qPrintable(err->message));
    store::ExecutionOutcome outcome;
    outcome.state = state;
    outcome.finishedMs = job.finishedAt().isValid() ? job.finishedAt().toMSecsSinceEpoch() : 0;
    outcome.exitCode = job.exitCode();
    outcome.signal = job.signal();
    outcome.statusReason = job.message();
    outcome.createdFiles = files.createdFiles;
    outcome.modifiedFiles = files.modifiedFiles;
    outcome.deletedFiles = files.deletedFiles;
    outcome.logBytes.stdoutBytes = job.streamSize(BrokerJob::Stream::Stdout);
    outcome.logBytes.stderrBytes = job.streamSize(BrokerJob::Stream::Stderr);
    outcome.logBytes.droppedBytes = job.droppedBytes();
    return m_records.finish(id, outcome);
}

std::optional<Error> BrokerJobStore::get(const QString& jobId, store::ExecutionRecord* out) const {
    if (!store::isValidExecutionId(jobId))
        return jobNotFound(jobId);
    if (auto err = m_records.get(jobId, out)) {
        const Error error = *err;
        return error.kind == ErrorKind::NotFound ? jobNotFound(jobId) : error;
    }
    if (out->kind != store::ExecutionKind::Broker)
        return jobNotFound(jobId);
    store::LogInfo info;
    if (!store::isTerminal(out->state) && !m_logs->info(jobId, &info)) {
        out->logBytes.stdoutBytes = info.stdoutBytes;
        out->logBytes.stderrBytes = info.stderrBytes;
    }
    return std::nullopt;
}

std::optional<Error> BrokerJobStore::list(const QString& workspaceId, int limit,
                                          QList<store::ExecutionRecord>* out) const {
    store::ExecutionFilter filter;
    filter.workspaceId = workspaceId;
    filter.kinds = {store::ExecutionKind::Broker};
    filter.limit = std::clamp(limit, 1, kMaxListed);
    store::ExecutionPage page;
    if (auto err = m_records.list(filter, &page))
        return err;
    out->clear();
    for (auto it = page.items.crbegin(); it != page.items.crend(); ++it) {
        store::ExecutionRecord record = *it;
        store::LogInfo info;
        if (!store::isTerminal(record.state) && !m_logs->info(record.executionId, &info)) {
            record.logBytes.stdoutBytes = info.stdoutBytes;
            record.logBytes.stderrBytes = info.stderrBytes;
        }
        out->append(record);
    }
    return std::nullopt;
}

std::optional<Error> BrokerJobStore::outputs(const QString& jobId,
                                             QList<store::ExecutionOutput>* out) const {
    return m_outputs.list(jobId, out);
}

QJsonObject BrokerJobStore::jobJson(const store::ExecutionRecord& r) {
    std::optional<qint64> durationMs = r.durationMs;
    if (!durationMs && r.startedMs)
        durationMs =
            (r.finishedMs ? *r.finishedMs : QDateTime::currentMSecsSinceEpoch()) - *r.startedMs;
    return {{"id", r.executionId},
            {"workloadId", r.provenance.value(QLatin1String("workloadId"))},
            {"workspace", r.workspaceId},
            {"state", store::toString(r.state)},
            {"chips", r.permissionEpoch.value(QLatin1String("npuDevices")).toArray()},
            {"exitCode", nullable(r.exitCode)},
            {"signal", nullable(r.signal)},
            {"message", nullable(r.statusReason)},
            {"createdAt", store::isoTimestamp(r.createdMs)},
            {"startedAt", iso(r.startedMs)},
            {"finishedAt", iso(r.finishedMs)},
            {"durationMs", nullable(durationMs)},
            {"stdoutBytes", static_cast<double>(r.logBytes.stdoutBytes)},
            {"stderrBytes", static_cast<double>(r.logBytes.stderrBytes)},
            {"truncated", r.logBytes.droppedBytes > 0}};
}

store::ExecutionState BrokerJobStore::stateOf(BrokerJob::State state) {
    switch (state) {
    case BrokerJob::State::Queued:
        return store::ExecutionState::Queued;
    case BrokerJob::State::Running:
        return store::ExecutionState::Running;
    case BrokerJob::State::Completed:
        return store::ExecutionState::Completed;
    case BrokerJob::State::Failed:
        return store::ExecutionState::Failed;
    case BrokerJob::State::Cancelled:
        return store::ExecutionState::Cancelled;
    case BrokerJob::State::TimedOut:
        return store::ExecutionState::TimedOut;
    case BrokerJob::State::SetupFailed:
        return store::ExecutionState::SetupFailed;
    }
    return store::ExecutionState::Failed;
}

} // namespace runbox::npu
