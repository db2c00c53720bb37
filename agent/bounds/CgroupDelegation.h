#pragma once

#include <QString>
#include <QStringList>

namespace runbox::bounds {

/// Where the kernel files that describe this process's cgroups are: the real ones by default,
/// a fake tree in tests.
struct CgroupPaths {
    QString procSelfCgroup = QStringLiteral("/proc/self/cgroup"); ///< proc(5) /proc/pid/cgroup
    QString procSelfMountinfo = QStringLiteral("/proc/self/mountinfo"); ///< proc(5) mountinfo
    /// When set, used as the cgroup2 mount point instead of the one mountinfo names (fake trees).
    QString mountOverride;
};

/// The agent's delegated cgroup v2 subtree, or why it has none. Kernel doc
/// Documentation/admin-guide/cgroup-v2.rst ("Delegation", "No Internal Process Constraint"):
/// a subtree is usable when the agent's own cgroup (the `0::` line of /proc/self/cgroup under the
/// cgroup2 mount) is writable by it and its `cgroup.controllers` offers `memory` and `pids`
/// (systemd gives a service this with `Delegate=yes`). On this project's CI machines cgroups are
/// hybrid and v2 offers only `hugetlb`: detect() then says so in reason() and the caller falls
/// back to the memory watchdog (docs/bounds.md).
class CgroupDelegation final {
public:
    /// Reads @p paths; never writes. Not usable (with a reason) when there is no cgroup2 mount,
    /// no `0::` line, the directory is not writable, or memory/pids are not offered.
    static CgroupDelegation detect(const CgroupPaths& paths = {});

    /// Makes the subtree ready for execution cgroups: when the agent's cgroup is not the root
    /// one, every process in it moves to a leaf `<cgroup>/agent` (the no-internal-process rule),
    /// then `+memory +pids` (and `+cpu` when offered) are written to `cgroup.subtree_control`.
    /// Returns false with @p error (the file and errno text) when a write is refused; the
    /// subtree is then not usable.
    bool prepare(QString* error);

    bool usable() const { return m_usable; }
    /// Why not usable: one sentence naming the mount, the cgroup and what is missing.
    QString reason() const { return m_reason; }
    /// The agent's cgroup directory (absolute path under the cgroup2 mount); "" when none.
    QString directory() const { return m_directory; }
    /// The controllers `cgroup.controllers` offers the agent's cgroup.
    QStringList controllers() const { return m_controllers; }
    bool hasCpu() const { return m_controllers.contains(QLatin1String("cpu")); }

    /// The cgroup2 mount point in a mountinfo text ("" when none); octal escapes (`\040`) decoded.
    static QString cgroup2MountOf(const QByteArray& mountinfo);
    /// The path of the `0::` line of a /proc/PID/cgroup text ("" when none).
    static QString unifiedPathOf(const QByteArray& procCgroup);

private:
    bool m_usable = false;
    bool m_isRootCgroup = false;
    QString m_reason;
    QString m_directory;
    QStringList m_controllers;
};

} // namespace runbox::bounds
