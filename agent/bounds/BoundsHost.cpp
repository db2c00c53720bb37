#include "agent/bounds/BoundsHost.h"

#include "agent/bounds/SharedMemoryScan.h"

#include <QFile>
#include <QJsonArray>

#include <unistd.h>

namespace runbox::bounds {

namespace {

/// Why the watchdog cannot read other processes' memory, or "" when it can: /proc must list
/// pid 1 with a readable `statm` (a `hidepid` mount hides other users' processes; proc(5)).
QString watchdogProblem(const QString& procRoot) {
    QFile self(procRoot + QStringLiteral("/self/statm"));
    if (!self.open(QIODevice::ReadOnly))
        return QStringLiteral("%1/self/statm cannot be read (%2)")
            .arg(procRoot, self.errorString());
    QFile init(procRoot + QStringLiteral("/1/statm"));
    if (!init.open(QIODevice::ReadOnly))
        return QStringLiteral("%1 hides other processes (hidepid?): %1/1/statm cannot be read")
            .arg(procRoot);
    return {};
}

/// What the watchdog does not see (docs/bounds.md "What it does not see"; found by attacks).
const char* const kBlindSpots[] = {
    "shared memory objects (memfd, SysV) held only in flight in a unix socket (SCM_RIGHTS), and "
    "SysV segments that no process has attached in a strong sandbox's own IPC namespace, are not "
    "counted by the watchdog (the latter are bounded at 256 MiB per sandbox: no segment past 64 "
    "KiB)",
    "kernel memory of TCP/UDP socket buffers is bounded only host-wide (net.ipv4.tcp_mem, "
    "udp_mem), not per execution",
};

/// The blind spot of pipe buffers (docs/bounds.md "Pipe buffers"), with what bounds them on this
/// host: fs.pipe-user-pages-hard (pages per uid, 0 = none), read at each call.
QString pipeBlindSpot() {
    QFile file(QStringLiteral("/proc/sys/fs/pipe-user-pages-hard"));
    bool ok = false;
    const qint64 pages =
        file.open(QIODevice::ReadOnly) ? file.readAll().trimmed().toLongLong(&ok) : -1;
    if (ok && pages > 0)
        return QStringLiteral("kernel memory of pipe buffers is not counted by the watchdog; "
                              "fs.pipe-user-pages-hard bounds it at %1 pages (%2 MiB) per uid: "
                              "per strong workspace under a root agent, shared by every "
                              "sandbox of a rootless one")
            .arg(pages)
            .arg(pages * ::sysconf(_SC_PAGESIZE) / (1 << 20));
    return QStringLiteral("kernel memory of pipe buffers is counted by no bound "
                          "(fs.pipe-user-pages-hard is %1): past fs.pipe-user-pages-soft each "
                          "new pipe still holds 2 pages, up to processes x open files (16 "
                          "processes of one strong sandbox held 1.38 GB under a 512 MiB limit); "
                          "an operator bounds it per uid with fs.pipe-user-pages-hard "
                          "(docs/bounds.md \"Pipe buffers\")")
        .arg(ok ? QStringLiteral("0") : QStringLiteral("unreadable"));
}

} // namespace

BoundsHost::BoundsHost(Options options, QObject* parent)
    : QObject(parent), m_cgroupOps(options.cgroupOps) {
    m_delegation = CgroupDelegation::detect(options.cgroupPaths);
    QString cgroupWhy = m_delegation.reason();
    if (options.useCgroups && m_delegation.usable()) {
        QString error;
        if (m_delegation.prepare(&error)) {
            m_mode = Mode::Cgroup2;
            // What a killed agent left (docs/bounds.md): its executions' cgroups.
            ExecutionCgroup::sweep(m_delegation.directory(), nullptr, m_cgroupOps);
            m_reason = QStringLiteral("delegated cgroup v2 subtree %1 (controllers: %2)")
                           .arg(m_delegation.directory(), m_delegation.controllers().join(' '));
        } else {
            cgroupWhy = QStringLiteral("the delegated cgroup %1 could not be prepared: %2")
                            .arg(m_delegation.directory(), error);
        }
    } else if (!options.useCgroups) {
        cgroupWhy = QStringLiteral("cgroups are not used (configuration)");
    }
    const QString procWhy = watchdogProblem(options.procRoot);
    if (procWhy.isEmpty())
        m_watchdog = new MemoryWatchdog(this, options.procRoot);
    if (m_mode == Mode::Cgroup2)
        return;
    if (m_watchdog) {
        m_mode = Mode::Watchdog;
        m_reason = QStringLiteral("no delegated cgroup v2 subtree (%1): the watchdog samples "
                                  "each execution's processes every 100 ms or faster")
                       .arg(cgroupWhy);
    } else {
        m_mode = Mode::None;
        m_reason = QStringLiteral("no delegated cgroup v2 subtree (%1) and no watchdog (%2): "
                                  "executions with a memory limit are refused")
                       .arg(cgroupWhy, procWhy);
    }
}

BoundsHost::~BoundsHost() {
    QStringList ids;
    for (const auto& entry : m_cgroups)
        ids.append(entry.first);
    for (const QString& id : ids)
        dropCgroup(id);
}

qint64 BoundsHost::hostPidMax() {
    QFile file(QStringLiteral("/proc/sys/kernel/pid_max"));
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    return file.readAll().trimmed().toLongLong();
}

QJsonObject BoundsHost::processesJson(qint64 maxConcurrentExecutions, qint64 maxProcesses) {
    const qint64 pidMax = hostPidMax();
    QString reason;
    bool ok = true;
    if (maxConcurrentExecutions == 0 || maxProcesses == 0) {
        ok = false;
        reason = QStringLiteral("maxConcurrentExecutions or maxProcesses is unlimited: running "
                                "executions can exhaust the host's %1 pids")
                     .arg(pidMax);
    } else if (pidMax > 0 && maxConcurrentExecutions * maxProcesses > pidMax / 2) {
        ok = false;
        reason = QStringLiteral("%1 × %2 = %3 processes is above half of pid_max %4")
                     .arg(maxConcurrentExecutions)
                     .arg(maxProcesses)
                     .arg(maxConcurrentExecutions * maxProcesses)
                     .arg(pidMax);
    }
    return QJsonObject{{QStringLiteral("pidMax"), pidMax},
                       {QStringLiteral("maxConcurrentExecutions"), maxConcurrentExecutions},
                       {QStringLiteral("maxProcesses"), maxProcesses},
                       {QStringLiteral("ok"), ok},
                       {QStringLiteral("reason"), reason}};
}

QString BoundsHost::toString(Mode mode) {
    switch (mode) {
    case Mode::Cgroup2:
        return QStringLiteral("cgroup2");
    case Mode::Watchdog:
        return QStringLiteral("watchdog");
    case Mode::None:
        break;
    }
    return QStringLiteral("none");
}

QJsonObject BoundsHost::toJson() const {
    QJsonArray blind;
    if (m_watchdog) {
        for (const char* spot : kBlindSpots)
            blind.append(QLatin1String(spot));
        blind.append(pipeBlindSpot());
    }
    if (m_watchdog && !SharedMemoryScan::mapFilesReadable())
        blind.append(QStringLiteral(
            "this agent cannot follow /proc/PID/map_files (it needs CAP_SYS_ADMIN or "
            "CAP_CHECKPOINT_RESTORE): of a shared memory object that is only mapped, with no "
            "descriptor left, the mapped pages count, the unmapped ones are not seen"));
    if (m_watchdog) {
        const UnixSocketMemory* sockets = m_watchdog->unixSockets();
        // Strong sandboxes may have sockets under the Network, Npu and UnixSockets seccomp
        // profiles; their network namespace is their own.
        blind.append(
            sockets->available() && UnixSocketMemory::mayEnterNamespaces()
                ? QStringLiteral("strong sandboxes: the unix socket buffers of their own network "
                                 "namespace count (sock_diag), with each socket's own kernel "
                                 "objects, what a closed writer left queued as an upper bound; "
                                 "under a network policy unix datagram sockets and non-stream "
                                 "pairs are refused, under the NPU profile they are not, and what "
                                 "a closed sender left on a datagram receiver there is not seen")
                : QStringLiteral("strong sandboxes with sockets (a network policy, NPU chips, "
                                 "a served port): the kernel memory of unix socket buffers is "
                                 "not counted (%1)")
                      .arg(sockets->available()
                               ? QStringLiteral("listing a sandbox's sockets means entering its "
                                                "network namespace, which needs CAP_SYS_ADMIN: "
                                                "a root agent")
                               : sockets->reason()));
        blind.append(
            sockets->available()
                ? QStringLiteral(
                      "light workspaces: unix socket buffers count (sock_diag), with each "
                      "socket's own kernel objects, what a closed writer left queued as an upper "
                      "bound (unix datagram sockets are refused: what a closed sender left on a "
                      "receiver is listed nowhere); not seen: sockets in a network namespace "
                      "none of the workspace's processes is in")
                : QStringLiteral("light workspaces: the kernel memory of unix socket buffers is "
                                 "not counted (%1)")
                      .arg(sockets->reason()));
    }
    return QJsonObject{
        {QStringLiteral("mode"), toString(m_mode)},
        {QStringLiteral("reason"), m_reason},
        {QStringLiteral("lightMode"),
         m_watchdog ? QStringLiteral("watchdog") : QStringLiteral("none")},
        {QStringLiteral("blindSpots"), blind},
    };
}

QJsonObject BoundsHost::cpuJson() const {
    QString reason;
    if (enforcesCpu())
        reason = QStringLiteral("cpu.max of each strong execution's cgroup; light workspaces are "
                                "not CPU-limited (executions there under a limit are refused)");
    else if (m_mode == Mode::Cgroup2)
        reason = QStringLiteral("the delegated cgroup %1 offers no cpu controller (controllers: "
                                "%2): executions under a maxCpuMillicores limit are refused")
                     .arg(m_delegation.directory(), m_delegation.controllers().join(' '));
    else
        reason = QStringLiteral("no delegated cgroup v2 subtree with the cpu controller (%1): "
                                "executions under a maxCpuMillicores limit are refused; each "
                                "sandbox still gets its own scheduler autogroup (own session)")
                     .arg(m_delegation.reason());
    return QJsonObject{{QStringLiteral("mode"),
                        enforcesCpu() ? QStringLiteral("cgroup2") : QStringLiteral("none")},
                       {QStringLiteral("reason"), reason}};
}

QJsonObject BoundsHost::diskJson(const QJsonObject& watcher) const {
    if (m_projectQuota)
        return m_projectQuota->toJson();
    QJsonObject disk = watcher;
    if (!m_projectQuotaWhy.isEmpty())
        disk.insert(QStringLiteral("reason"),
                    QStringLiteral("%1; project quotas are not used: %2")
                        .arg(watcher.value(QLatin1String("reason")).toString(), m_projectQuotaWhy));
    return disk;
}

ExecutionCgroup* BoundsHost::createCgroup(const QString& executionId, const ResourceLimits& limits,
                                          QString* error) {
    if (m_mode != Mode::Cgroup2) {
        *error = QStringLiteral("no delegated cgroup v2 subtree");
        return nullptr;
    }
    dropCgroup(executionId);
    std::unique_ptr<ExecutionCgroup> cgroup =
        ExecutionCgroup::create(m_delegation.directory(), executionId, limits, error, m_cgroupOps);
    if (!cgroup)
        return nullptr;
    ExecutionCgroup* raw = cgroup.get();
    m_cgroups[executionId] = std::move(cgroup);
    return raw;
}

std::unique_ptr<ExecutionCgroup> BoundsHost::takeCgroup(const QString& executionId) {
    const auto it = m_cgroups.find(executionId);
    if (it == m_cgroups.end())
        return nullptr;
    std::unique_ptr<ExecutionCgroup> cgroup = std::move(it->second);
    m_cgroups.erase(it);
    return cgroup;
}

void BoundsHost::dropCgroup(const QString& executionId) {
    std::unique_ptr<ExecutionCgroup> cgroup = takeCgroup(executionId);
    if (!cgroup)
        return;
    cgroup->killAll();
    cgroup->remove();
}

} // namespace runbox::bounds
