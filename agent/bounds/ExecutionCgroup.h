#pragma once

#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <sys/types.h>

namespace runbox::bounds {

/// What one execution's whole process tree may use. Bytes; 0 = unlimited.
struct ResourceLimits {
    qint64 memoryBytes = 0;  ///< `memory.max` (tmpfs pages the tree writes are charged to it too)
    bool swap = false;       ///< false: `memory.swap.max` 0, the limit cannot spill into swap
    qint64 maxProcesses = 0; ///< `pids.max` (tasks: processes and threads)
    int cpuWeight = 0;       ///< `cpu.weight` 1..10000 (100 = the kernel's default); 0 = leave it
    double maxCpuCores = 0;  ///< `cpu.max` as cores (quota = cores × period); 0 = unlimited
};

/// What the tree used, read when it ended; -1 where the kernel did not say.
struct ResourceUsage {
    qint64 peakMemoryBytes = -1; ///< `memory.peak` (Linux 5.19+), else the largest sample
    qint64 cpuUserMs = -1;       ///< `cpu.stat` user_usec / 1000
    qint64 cpuSystemMs = -1;     ///< `cpu.stat` system_usec / 1000
    qint64 peakProcesses = -1;   ///< `pids.peak` where it exists, else the largest sample
    bool memoryExceeded =
        false; ///< `memory.events` counted an OOM kill: the run ends memory_exceeded
};

/// One execution's child cgroup under the agent's delegated subtree (CgroupDelegation): made with
/// the limits before the execution starts, its processes placed in it at spawn (directoryFd()
/// for clone3's CLONE_INTO_CGROUP, or addProcess), ended as a whole with `cgroup.kill`, removed
/// when empty. `memory.oom.group` is set, so an OOM kill ends the whole tree, not one process.
/// Kernel doc Documentation/admin-guide/cgroup-v2.rst ("memory", "pids", "cpu", "Core Interface
/// Files"); docs/bounds.md.
class ExecutionCgroup final {
public:
    /// Test seam: how a cgroup directory is made and removed. The kernel makes and removes the
    /// interface files itself; a fake tree's functions do that. Default: mkdir(2) 0755, rmdir(2);
    /// each returns false with errno set.
    struct DirectoryOps {
        std::function<bool(const QString& directory)> make;
        std::function<bool(const QString& directory)> remove;
        static DirectoryOps kernel();
    };

    /// Makes `<parent>/runbox-ex-<executionId>` and writes the limits. Null with @p error
    /// ("FILE: strerror") when the directory exists already or a write is refused (the half-made
    /// cgroup is removed again).
    static std::unique_ptr<ExecutionCgroup> create(const QString& parent,
                                                   const QString& executionId,
                                                   const ResourceLimits& limits, QString* error,
                                                   DirectoryOps ops = DirectoryOps::kernel());
    /// Closes the directory descriptor; the cgroup itself stays until remove().
    ~ExecutionCgroup();
    ExecutionCgroup(const ExecutionCgroup&) = delete;
    ExecutionCgroup& operator=(const ExecutionCgroup&) = delete;

    /// The cgroup's directory name for an execution id: `runbox-ex-` + the id's [A-Za-z0-9_-].
    static QString nameFor(const QString& executionId);

    QString directory() const { return m_directory; }
    /// O_PATH | O_DIRECTORY descriptor of the cgroup (clone3(2) CLONE_INTO_CGROUP); -1 if none.
    int directoryFd() const { return m_directoryFd; }
    /// Moves @p pid (its whole thread group) into the cgroup: `cgroup.procs`.
    bool addProcess(pid_t pid, QString* error);
    /// Records `memory.current` and `pids.current` for kernels without the `.peak` files; call
    /// it from the run's watcher.
    void sample();
    /// What the tree used so far (see ResourceUsage).
    ResourceUsage usage() const;
    /// True while any process is in the cgroup (`cgroup.events` populated 1).
    bool isPopulated() const;
    /// SIGKILLs the whole tree: `cgroup.kill` (Linux 5.14+), else every pid of `cgroup.procs`
    /// while the cgroup is frozen (`cgroup.freeze`), so nothing forks in between.
    void killAll();
    /// rmdir(2); EBUSY while populated. True when the directory is gone.
    bool remove(QString* error = nullptr);

    /// Start-up sweep: kills and removes every `runbox-ex-*` cgroup under @p parent (left by an
    /// agent that was killed). Returns the names removed; those that could not be go to @p failed.
    static QStringList sweep(const QString& parent, QStringList* failed = nullptr,
                             DirectoryOps ops = DirectoryOps::kernel());

private:
    ExecutionCgroup(QString directory, DirectoryOps ops);
    QString file(const char* name) const;

    QString m_directory;
    DirectoryOps m_ops;
    int m_directoryFd = -1;
    qint64 m_sampledMemory = -1;
    qint64 m_sampledProcesses = -1;
};

} // namespace runbox::bounds
