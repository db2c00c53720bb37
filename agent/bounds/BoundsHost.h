#pragma once

#include "agent/bounds/CgroupDelegation.h"
#include "agent/bounds/ExecutionCgroup.h"
#include "agent/bounds/MemoryWatchdog.h"
#include "agent/bounds/ProjectQuota.h"

#include <QJsonObject>
#include <QObject>
#include <QString>

#include <map>
#include <memory>

namespace runbox::bounds {

/// How this host bounds the memory and processes of executions, chosen once at start-up
/// (docs/bounds.md "Mechanisms"): a delegated cgroup v2 subtree when the agent owns one, else
/// the memory watchdog over /proc, else nothing (then a limited execution is refused: fail
/// closed, never run unbounded silently). Owns the watchdog and the execution cgroups made for
/// launches until their run takes them. Lives on the agent's event loop.
class BoundsHost final : public QObject {
    Q_OBJECT
public:
    enum class Mode { Cgroup2, Watchdog, None };
    struct Options {
        CgroupPaths cgroupPaths;
        QString procRoot = QStringLiteral("/proc");
        /// false: never use cgroups even where delegated (tests of the watchdog path).
        bool useCgroups = true;
        /// How execution cgroups are made and removed (fake trees in tests).
        ExecutionCgroup::DirectoryOps cgroupOps = ExecutionCgroup::DirectoryOps::kernel();
    };

    explicit BoundsHost(Options options, QObject* parent = nullptr);
    /// With the default options (the real /proc and cgroup files).
    explicit BoundsHost(QObject* parent = nullptr) : BoundsHost(Options{}, parent) {}
    ~BoundsHost() override;

    /// The mechanism strong sandboxes run under; light workspaces, whose processes the root
    /// helper starts outside any execution cgroup, are watched by the watchdog in both modes.
    Mode mode() const { return m_mode; }
    /// Why this mode: the cgroup subtree's state and, for the watchdog, what it does not see.
    QString reason() const { return m_reason; }
    /// Whether a memory limit can be enforced here (every mode but None): a run is in its
    /// cgroup or, failing that, watched by the watchdog.
    bool enforcesMemory() const { return m_mode != Mode::None; }
    /// Whether a CPU limit (maxCpuMillicores) can be enforced for runs that enter an execution
    /// cgroup: Cgroup2 mode with the cpu controller delegated (`cpu.max`). Light workspaces,
    /// never in an execution cgroup, cannot be CPU-limited in any mode.
    bool enforcesCpu() const { return m_mode == Mode::Cgroup2 && m_delegation.hasCpu(); }
    /// `{"mode":"cgroup2"|"none","reason":"…"}`: how maxCpuMillicores is enforced, for
    /// /v1/health `cpu`.
    QJsonObject cpuJson() const;
    /// Whether a run can be watched by the watchdog (/proc is readable; any mode).
    bool watchdogUsable() const { return m_watchdog != nullptr; }
    MemoryWatchdog* watchdog() const { return m_watchdog; }
    /// The delegated subtree (usable only in Cgroup2 mode).
    const CgroupDelegation& delegation() const { return m_delegation; }

    /// `{"mode":"cgroup2"|"watchdog"|"none","reason":"…","lightMode":"watchdog"|"none",
    /// "blindSpots":["…"]}` for /v1/health.
    QJsonObject toJson() const;
    /// The kernel's pid_max (/proc/sys/kernel/pid_max, proc(5)); 0 when unreadable.
    static qint64 hostPidMax();
    /// `{"pidMax","maxConcurrentExecutions","maxProcesses","ok","reason"}`: whether
    /// maxConcurrentExecutions × maxProcesses (0 = unlimited) stays at or below half of pid_max.
    static QJsonObject processesJson(qint64 maxConcurrentExecutions, qint64 maxProcesses);
    /// "cgroup2", "watchdog" or "none".
    static QString toString(Mode mode);

    /// The kernel's project quota on the strong workspaces' filesystem (docs/bounds.md "Disk"),
    /// detected at start-up by AgentRuntime; null when it is not used.
    ProjectQuota* projectQuota() const { return m_projectQuota.get(); }
    void setProjectQuota(std::unique_ptr<ProjectQuota> quota) { m_projectQuota = std::move(quota); }
    /// Why project quotas are not used (ProjectQuota::detect's answer, or that the agent does
    /// not run sandboxes as workspace uids).
    void setProjectQuotaUnavailable(const QString& why) { m_projectQuotaWhy = why; }
    /// /v1/health `disk`: with project quotas, ProjectQuota::toJson() (`mode` "project_quota");
    /// without, @p watcher (`{"mode":"watcher","reason":…}`, the watcher's own account) with
    /// why project quotas are not used appended to its reason.
    QJsonObject diskJson(const QJsonObject& watcher) const;

    /// Makes execution @p executionId's cgroup (Cgroup2 mode); null with @p error otherwise.
    /// The cgroup is kept here until takeCgroup() or dropCgroup().
    ExecutionCgroup* createCgroup(const QString& executionId, const ResourceLimits& limits,
                                  QString* error);
    /// Hands the cgroup of @p executionId to its run (null when none was made).
    std::unique_ptr<ExecutionCgroup> takeCgroup(const QString& executionId);
    /// Kills and removes the cgroup of @p executionId if it is still here (a launch that never
    /// became a run).
    void dropCgroup(const QString& executionId);

private:
    Mode m_mode = Mode::None;
    QString m_reason;
    CgroupDelegation m_delegation;
    MemoryWatchdog* m_watchdog = nullptr;
    std::map<QString, std::unique_ptr<ExecutionCgroup>> m_cgroups;
    ExecutionCgroup::DirectoryOps m_cgroupOps;
    std::unique_ptr<ProjectQuota> m_projectQuota;
    QString m_projectQuotaWhy;
};

} // namespace runbox::bounds
