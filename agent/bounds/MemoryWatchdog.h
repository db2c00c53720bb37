#pragma once

#include "agent/bounds/ProcessTable.h"
#include "agent/bounds/SharedMemoryScan.h"
#include "agent/bounds/UnixSocketMemory.h"

#include <QElapsedTimer>
#include <QObject>
#include <QStringList>
#include <QTimer>

#include <functional>
#include <map>
#include <memory>

namespace runbox::bounds {

/// The memory bound where no delegated cgroup v2 subtree exists (docs/bounds.md "Watchdog"):
/// one shared scan of /proc sums, for each watched execution, the private anonymous and shared
/// memory pages of its processes plus the bytes used on its tmpfs mounts, and calls the watch's
/// `exceeded` once the sum passes its limit (the run then kills its whole tree). The scan runs
/// every 100 ms, and faster as any watch nears its limit (first-touch faults reach ~110 MiB per
/// 100 ms here). Shared memory objects (memfds, shared anonymous regions, SysV segments) count
/// whole, mapped or not (SharedMemoryScan), read when the host's shared memory grows unexplained
/// (docs/bounds.md "Shared memory objects"). What it cannot see is said there. Lives on the
/// agent's event loop; every method is called from that thread.
class MemoryWatchdog final : public QObject {
    Q_OBJECT
public:
    /// Usage of one watch, bytes and processes; peaks since watch().
    struct Usage {
        qint64 currentBytes = 0;
        qint64 peakBytes = 0;
        int processes = 0;
        int peakProcesses = 0;
        /// Part of currentBytes held in unix socket buffers (Watch::countUnixSockets), bytes.
        qint64 unixSocketBytes = 0;
        /// Part of unixSocketBytes that is an upper bound of what closed writers left queued
        /// (UnixSocketMemory), not a measure.
        qint64 unixSocketEstimatedBytes = 0;
        /// Allocated bytes of the shared memory objects its processes held at the last
        /// SharedMemoryScan (memfds, shared anonymous, SysV; mapped or not). currentBytes counts
        /// its shared memory as the larger of this and its processes' mapped shared pages.
        qint64 sharedObjectBytes = 0;
        bool exceeded = false;
    };
    /// A tmpfs of the execution, seen from the host (`/proc/PID/root/tmp`). It counts only while
    /// it is a tmpfs (TMPFS_MAGIC) on another device than @ref hostPath, the host's own mount at
    /// the same place: until the sandbox has mounted its own, the path shows the host's.
    struct TmpfsMount {
        QString path;
        QString hostPath;
    };
    /// One execution to watch.
    struct Watch {
        Membership members;
        qint64 limitBytes = 0; ///< 0 = sample only (usage for the record), never exceeded
        /// Mounts whose used bytes (statfs(2)) count, e.g. its /tmp (see TmpfsMount).
        QList<TmpfsMount> tmpfsMounts;
        std::function<void(const Usage&)> exceeded; ///< called once, after a scan; may unwatch
        /// Unix socket buffers count too (UnixSocketMemory::measure), measured in each network
        /// namespace a member is in: for a watch by uid, those its uid owns; for a watch by PID
        /// namespace (a strong sandbox, whose network namespace is its own), every socket of
        /// its members' namespaces but the agent's own. Entering a sandbox's namespace needs
        /// UnixSocketMemory::mayEnterNamespaces().
        bool countUnixSockets = false;
    };

    explicit MemoryWatchdog(QObject* parent = nullptr, QString procRoot = QStringLiteral("/proc"));

    /// Starts watching; returns the handle for usage() and unwatch(). The first scan runs on the
    /// next turn of the event loop; `exceeded` is never called from inside watch().
    int watch(Watch watch);
    /// Stops watching @p handle; returns its last usage.
    Usage unwatch(int handle);
    Usage usage(int handle) const;
    int watchCount() const { return int(m_watches.size()); }

    /// One scan of every watch now (tests). Returns the processes seen.
    int scanNow() { return scan(false); }
    /// One scan of the watches that are due (the timer calls it; the benchmark too): each is
    /// measured again intervalFor() after its last measurement. Returns the processes seen, 0
    /// when none was due (then /proc is not read at all).
    int scanDue() { return scan(true); }
    /// The delay for a usage/limit fraction: 100 ms below 1/2, 50 below 3/4, 20 below 9/10,
    /// else 10.
    static int intervalForFraction(double fraction);
    /// When a watch at @p usedBytes of @p limitBytes (0 = none) is measured again, ms: the
    /// fraction's interval, and below half the limit up to half the time the host needs to fault
    /// the headroom in (kFaultBytesPerSecondPerCpu x @p cpus), on the 100 ms grid, at most
    /// kMaxIntervalMs: a watch far below a loose limit costs a read per second, not ten
    /// (docs/bounds.md "Watchdog").
    static int intervalFor(qint64 usedBytes, qint64 limitBytes, int cpus);
    /// The fastest first-touch fault rate assumed for one CPU: 2.7 GiB/s measured here (4 KiB
    /// pages, 2 GiB touched by one process on a quiet host; transparent huge pages were slower),
    /// plus half.
    static constexpr qint64 kFaultBytesPerSecondPerCpu = 4ll << 30;
    static constexpr int kMaxIntervalMs = 1000;
    /// The unix socket reader, made on first need (the health report asks whether it works).
    UnixSocketMemory* unixSockets();
    /// A member's network namespace is read again after this many scans (docs/bounds.md "Unix
    /// socket buffers": at 100 ms, a process that enters a new one is seen within 200 ms).
    static constexpr quint64 kNetNamespaceRecheckScans = 2;
    /// Shared pages are read from /proc/PID/status only past this many statm shared bytes.
    static constexpr qint64 kShmemProbeBytes = 32ll << 20;
    /// A watch's shared memory objects are looked for again (SharedMemoryScan) when the host's
    /// shared memory (sysinfo(2) `sharedram`, /proc/meminfo `Shmem`) less every watch's tmpfs
    /// has grown above its lowest value since the watch's last look by more than half the
    /// watch's headroom, and at least this much (kUnlimitedLookBytes for a watch without a
    /// limit): growth no counter explains may be its objects, and only past half its headroom
    /// can they matter (docs/bounds.md "Shared memory objects"). The objects it holds are sized
    /// again through where they were found (a stat(2) each) when that value fell this much
    /// since (something was freed) and at each measurement past half its limit.
    static constexpr qint64 kSharedMemoryTriggerBytes = 8ll << 20;
    static constexpr qint64 kUnlimitedLookBytes = 64ll << 20;
    /// How many SharedMemoryScan passes ran (tests, the benchmark).
    quint64 sharedMemoryScans() const { return m_sharedMemoryScans; }

private:
    struct State {
        Watch watch;
        Usage usage;
        qint64 dueAtMs = 0;          ///< m_clock time of its next measurement
        qint64 tmpfsBytes = 0;       ///< its tmpfs mounts' bytes, as last measured
        qint64 anonBytes = 0;        ///< this scan: statm's private pages of its processes
        qint64 mappedShmemBytes = 0; ///< this scan: their mapped shared pages (RssShmem)
        /// Its objects are looked for at its next measurement (a new watch; one it held went
        /// out of reach); otherwise when the host's unexplained shared memory grew.
        bool lookForObjects = true;
        QList<SharedMemoryScan::Object> objects; ///< as found by its last look
        QList<pid_t> unsizedProcesses;           ///< map an object the last look could not size
        qint64 unsizedShmemBytes = 0;            ///< their RssShmem, this scan
        /// Lowest host shared memory less tmpfs since its last look (m_unexplainedBytes).
        qint64 unexplainedLowBytes = 0;
        qint64 unexplainedAtSizeBytes = 0; ///< the same when its objects were last sized
        qint64 mappedShmemHighBytes = 0;   ///< highest mappedShmemBytes since then
    };
    int scan(bool onlyDue);
    /// Reads the host's shared memory less every watch's tmpfs (m_unexplainedBytes) and lowers
    /// each watch's low mark to it.
    void readHostSharedMemory();
    /// Sizes @p state's shared memory objects: a new look among @p members when due (see
    /// kSharedMemoryTriggerBytes) or when a known one is out of reach, else through their
    /// locators when something was freed or it is past half its limit.
    void measureObjects(State* state, const QList<pid_t>& members);
    /// The shared memory of @p state to count, from its mapped shared pages @p mappedBytes.
    static qint64 sharedBytesOf(const State& state, qint64 mappedBytes);
    /// Starts the timer for the earliest due watch.
    void schedule();
    /// Unix socket charges of each socket-counting watch among @p members, by watch.
    QHash<State*, UnixSocketMemory::Charge>
    unixSocketBytes(const QHash<State*, QList<pid_t>>& members);

    QString m_procRoot;
    ProcessTable m_table;
    std::unique_ptr<UnixSocketMemory> m_unixSockets;
    std::map<int, State> m_watches;
    int m_nextHandle = 1;
    QTimer m_timer;
    QElapsedTimer m_clock;
    int m_cpus = 1;
    qint64 m_unexplainedBytes = 0; ///< host shared memory less every watch's tmpfs, this scan
    quint64 m_sharedMemoryScans = 0;
};

} // namespace runbox::bounds
