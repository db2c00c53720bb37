#include "agent/execution/BoundedBackend.h"

#include "agent/bounds/BoundsHost.h"
#include "agent/bounds/ProcessTable.h"
#include "agent/bounds/UnixSocketMemory.h"
#include "agent/execution/WorkspaceQuotaWatcher.h"
#include "agent/workspace/WorkspaceFs.h"

#include <algorithm>

#include <csignal>

namespace runbox::execution {

namespace {
constexpr int kCgroupSampleMs = 100;

void mergePeak(bounds::MemoryWatchdog::Usage* into, const bounds::MemoryWatchdog::Usage& from) {
    into->peakBytes = std::max(into->peakBytes, from.peakBytes);
    into->peakProcesses = std::max(into->peakProcesses, from.peakProcesses);
}
} // namespace

BoundedBackend::BoundedBackend(ExecutionBackend* inner, bounds::BoundsHost* host, Watch watch,
                               QObject* parent)
    : ExecutionBackend(parent), m_inner(inner), m_host(host), m_watch(std::move(watch)) {
    m_inner->setParent(this);
    connect(m_inner, &ExecutionBackend::output, this, &ExecutionBackend::output);
    connect(m_inner, &ExecutionBackend::finished, this, &BoundedBackend::onFinished);
    connect(m_inner, &ExecutionBackend::pidNamespaceInitKnown, this,
            &BoundedBackend::onNamespaceInit);
    m_cgroupTimer.setInterval(kCgroupSampleMs);
    connect(&m_cgroupTimer, &QTimer::timeout, this, &BoundedBackend::sampleCgroup);
}

BoundedBackend::~BoundedBackend() {
    unwatch();
    if (m_watch.cgroup) {
        m_watch.cgroup->killAll();
        m_watch.cgroup->remove();
    }
}

void BoundedBackend::start() {
    m_quota = new WorkspaceQuotaWatcher(m_watch.fs, m_watch.limits.maxWorkspaceBytes, this);
    connect(m_quota, &WorkspaceQuotaWatcher::exceeded, this, [this](qint64 used, qint64 limit) {
        stop(QStringLiteral("quota_exceeded"),
             QStringLiteral("the workspace grew to %1 bytes, above maxWorkspaceBytes %2")
                 .arg(used)
                 .arg(limit));
    });
    if (m_watch.cgroup)
        m_cgroupTimer.start();
    else if (m_watch.workspaceUid)
        watchMembers({bounds::Membership::By::Uid, quint64(*m_watch.workspaceUid)}, {});
    m_quota->start();
    m_inner->start();
    // After the start: a directory that cannot be watched stops the run (fail closed).
    for (const QString& dir : std::as_const(m_watch.extraDirectories)) {
        auto fs = workspace::WorkspaceFs::open(dir);
        if (!fs) {
            stop(QStringLiteral("setup_failed"),
                 QStringLiteral("cannot watch %1: %2").arg(dir, fs.error().message));
            continue;
        }
        auto* extra = new WorkspaceQuotaWatcher(
            std::make_shared<const workspace::WorkspaceFs>(std::move(fs.value())),
            m_watch.limits.maxWorkspaceBytes, this);
        connect(extra, &WorkspaceQuotaWatcher::exceeded, this, [this](qint64 used, qint64 limit) {
            stop(QStringLiteral("quota_exceeded"),
                 QStringLiteral("the environment prefix grew to %1 bytes, above "
                                "maxWorkspaceBytes %2")
                     .arg(used)
                     .arg(limit));
        });
        extra->start();
        m_extraQuotas.append(extra);
    }
}

void BoundedBackend::stop(const QString& status, const QString& reason) {
    m_inner->stop(status, reason);
}

void BoundedBackend::watchMembers(bounds::Membership members,
                                  QList<bounds::MemoryWatchdog::TmpfsMount> tmpfs) {
    bounds::MemoryWatchdog* watchdog = m_host ? m_host->watchdog() : nullptr;
    if (!watchdog || m_finished)
        return;
    unwatch();
    bounds::MemoryWatchdog::Watch w;
    w.members = members;
    w.limitBytes = m_watch.limits.maxMemoryBytes;
    w.tmpfsMounts = std::move(tmpfs);
    // Unix socket buffers are kernel memory no RSS shows (docs/bounds.md "Unix socket buffers"):
    // a uid's, or every socket of a strong sandbox's own network namespace, where the agent
    // may enter it.
    w.countUnixSockets =
        members.by == bounds::Membership::By::Uid || bounds::UnixSocketMemory::mayEnterNamespaces();
    w.exceeded = [this](const bounds::MemoryWatchdog::Usage& usage) { onMemoryExceeded(usage); };
    m_handle = watchdog->watch(std::move(w));
}

void BoundedBackend::unwatch() {
    if (m_handle == 0 || !m_host || !m_host->watchdog())
        return;
    mergePeak(&m_peak, m_host->watchdog()->unwatch(m_handle));
    m_handle = 0;
}

void BoundedBackend::onNamespaceInit(qint64 pid) {
    if (m_watch.cgroup || m_finished)
        return;
    // The namespace and mounts of the sandbox, seen from the host (proc(5) /proc/PID/ns, root).
    const QString proc = QStringLiteral("/proc/%1").arg(pid);
    const quint64 inode = bounds::ProcessTable::pidNamespaceOf(pid_t(pid));
    if (inode == 0)
        return; // it is gone already; the uid watch (if any) stays
    watchMembers({bounds::Membership::By::PidNamespace, inode},
                 {{proc + QStringLiteral("/root/tmp"), QStringLiteral("/tmp")},
                  {proc + QStringLiteral("/root/dev/shm"), QStringLiteral("/dev/shm")}});
}

void BoundedBackend::onMemoryExceeded(const bounds::MemoryWatchdog::Usage& usage) {
    QString sockets;
    if (usage.unixSocketBytes > 0)
        sockets = QStringLiteral(", %1 of them in unix socket buffers").arg(usage.unixSocketBytes);
    if (usage.unixSocketEstimatedBytes > 0)
        sockets += QStringLiteral(" (%1 an upper bound of what closed writers left queued)")
                       .arg(usage.unixSocketEstimatedBytes);
    stop(QStringLiteral("memory_exceeded"),
         QStringLiteral("the execution used %1 bytes of memory (its processes and tmpfs%2), above "
                        "maxMemoryBytes %3")
             .arg(usage.currentBytes)
             .arg(sockets)
             .arg(m_watch.limits.maxMemoryBytes));
}

QString BoundedBackend::cgroupOomReason() const {
    return QStringLiteral("the kernel killed the execution at maxMemoryBytes %1 (cgroup "
                          "memory.max)")
        .arg(m_watch.limits.maxMemoryBytes);
}

void BoundedBackend::sampleCgroup() {
    m_watch.cgroup->sample();
    if (m_watch.cgroup->usage().memoryExceeded)
        stop(QStringLiteral("memory_exceeded"), cgroupOomReason());
}

void BoundedBackend::onFinished(ExecutionResult result) {
    m_finished = true;
    // Only a run that ended by itself is re-labelled; a stop's own status (timed_out,
    // memory_exceeded…) stands.
    const auto ranOut = [&result] {
        return result.status == QLatin1String("completed") ||
               result.status == QLatin1String("failed");
    };
    m_cgroupTimer.stop();
    if (m_quota)
        m_quota->stop();
    for (WorkspaceQuotaWatcher* extra : std::as_const(m_extraQuotas))
        extra->stop();
    unwatch();
    if (m_watch.cgroup) {
        m_watch.cgroup->sample();
        const bounds::ResourceUsage used = m_watch.cgroup->usage();
        m_peak.peakBytes = std::max(m_peak.peakBytes, used.peakMemoryBytes);
        m_peak.peakProcesses = std::max<int>(m_peak.peakProcesses, int(used.peakProcesses));
        if (used.cpuUserMs >= 0)
            result.usage.cpuUserMs = used.cpuUserMs;
        if (used.cpuSystemMs >= 0)
            result.usage.cpuSystemMs = used.cpuSystemMs;
        if (used.memoryExceeded && ranOut()) {
            result.status = QStringLiteral("memory_exceeded");
            result.reason = cgroupOomReason();
        }
        m_watch.cgroup->killAll();
        m_watch.cgroup->remove();
        m_watch.cgroup.reset();
    }
    if (m_peak.peakBytes > 0 || m_peak.peakProcesses > 0) {
        result.usage.peakMemoryBytes = m_peak.peakBytes;
        result.usage.peakProcesses = m_peak.peakProcesses;
    }
    // Measured only for a run that ended by itself under a quota (a tree walk each, off the
    // event loop).
    QList<WorkspaceQuotaWatcher*> checks;
    if (ranOut() && m_watch.limits.maxWorkspaceBytes > 0) {
        checks = m_extraQuotas;
        if (m_quota)
            checks.append(m_quota);
    }
    finishAfterQuotaChecks(std::move(result), std::move(checks));
}

void BoundedBackend::finishAfterQuotaChecks(ExecutionResult result,
                                            QList<WorkspaceQuotaWatcher*> left) {
    const qint64 quota = m_watch.limits.maxWorkspaceBytes;
    if (left.isEmpty()) {
        if (quota > 0 && result.exitCode == 128 + SIGXFSZ &&
            (result.status == QLatin1String("completed") ||
             result.status == QLatin1String("failed"))) {
            result.status = QStringLiteral("quota_exceeded");
            result.reason = QStringLiteral("a file reached maxWorkspaceBytes %1 (RLIMIT_FSIZE: the "
                                           "write was refused with SIGXFSZ)")
                                .arg(quota);
        }
        Q_EMIT finished(result);
        return;
    }
    WorkspaceQuotaWatcher* watcher = left.takeFirst();
    const bool prefix = watcher != m_quota;
    watcher->overLimitLater([this, result, left, prefix, quota](bool over, qint64 used) mutable {
        if (!over)
            return finishAfterQuotaChecks(std::move(result), std::move(left));
        result.status = QStringLiteral("quota_exceeded");
        result.reason =
            QStringLiteral("the %1 ended at %2 bytes, above maxWorkspaceBytes %3")
                .arg(prefix ? QStringLiteral("environment prefix") : QStringLiteral("workspace"))
                .arg(used)
                .arg(quota);
        Q_EMIT finished(result);
    });
}

} // namespace runbox::execution
