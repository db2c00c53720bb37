#pragma once

#include <QHash>
#include <QString>

#include <sys/types.h>

namespace runbox::bounds {

/// Which processes make up one watched execution: every process whose real uid is @ref id (a
/// light workspace, or a strong sandbox of a root agent: its own uid), or every process in the
/// PID namespace whose `ns/pid` inode is @ref id (any strong sandbox). Neither can be left by an
/// unprivileged process: setsid(2) or a double fork can leave a session or a process tree, not a
/// uid or a PID namespace.
struct Membership {
    enum class By { Uid, PidNamespace };
    By by = By::Uid;
    quint64 id = 0;
};

/// The processes of the host as /proc shows them, kept between scans so each scan costs one
/// getdents pass plus one read per member. A process is told apart from a later one with the
/// same pid by the inode number of its /proc entry (a new process gets a new one; proc(5)), so a
/// reused pid is classified afresh. Members' `statm` stay open and are re-read with pread(2).
class ProcessTable final {
public:
    /// Memory of one process, bytes: private anonymous pages, and shared memory pages (shmem:
    /// MAP_SHARED anonymous, memfd and SysV segments while mapped), both resident.
    struct Memory {
        qint64 anonBytes = 0;
        qint64 shmemBytes = 0;
    };
    /// One process as last classified.
    struct Entry {
        quint64 procInode = 0;    ///< d_ino of /proc/PID: changes when the pid is reused
        uid_t uid = uid_t(-1);    ///< real uid (`Uid:` of /proc/PID/status)
        quint64 pidNamespace = 0; ///< inode of /proc/PID/ns/pid; 0 when not read or unreadable
        int statmFd = -1;         ///< open while the process is a member of a watch
        int netLinkFd = -1;       ///< its `ns/net` link (O_PATH), once networkNamespaceOf asked
        quint64 netNamespace = 0; ///< inode of its network namespace as last read; 0: not yet
        quint64 netScan = 0;      ///< the scan that last read it
        quint64 firstScan = 0;    ///< the scan that first saw this process
        quint64 lastScan = 0;     ///< the latest scan that saw it (older: gone, dropped)
        /// A live thread whose /proc/TID files show the process's memory once its thread-group
        /// leader has exited (the leader's own statm, maps and fd show none); 0: the leader.
        pid_t memoryTask = 0;
    };
    /// How many scans a root process is re-classified for (at 100 ms: its first 5 s).
    static constexpr quint64 kRootRecheckScans = 50;

    /// @p procRoot: the proc mount to read (tests may point elsewhere).
    explicit ProcessTable(QString procRoot = QStringLiteral("/proc"));
    ~ProcessTable();
    ProcessTable(const ProcessTable&) = delete;
    ProcessTable& operator=(const ProcessTable&) = delete;

    /// Re-reads the process list: gone processes are dropped, new or reused pids classified
    /// (their uid always; their PID namespace when @p readNamespaces). With @p recheckRoot,
    /// processes seen as uid 0 during their first kRootRecheckScans scans are classified again:
    /// only they can still change uid, and the agent's helpers (light supervisor, sandbox guard)
    /// call setuid(2) right after fork, so none of their children is missed by a uid watch, while
    /// long-lived host root processes cost nothing after a while.
    /// Returns the number of processes seen.
    int refresh(bool readNamespaces, bool recheckRoot);
    const QHash<pid_t, Entry>& entries() const { return m_entries; }
    /// The memory of @p pid (its statm kept open from now on); false when it is gone.
    /// Shared pages are looked at (`RssShmem` of /proc/PID/status) only when statm's shared
    /// count passes @p shmemProbeBytes (or always with a negative value), since reading status
    /// costs more than statm. A process whose main thread has exited (pthread_exit(3) in main:
    /// the leader stays a zombie and its statm reads all zeros, proc(5)) is read through one of
    /// its live threads (Entry::memoryTask), so its memory still counts.
    bool memoryOf(pid_t pid, qint64 shmemProbeBytes, Memory* out);
    /// The task whose /proc/TID files (statm, maps, map_files) show @p pid's memory: @p pid, or
    /// a live thread once its leader has exited (as last found by memoryOf()).
    pid_t memoryTaskOf(pid_t pid) const;
    /// The /proc mount this table reads, open (O_DIRECTORY); -1 when it could not be opened.
    int procFd() const { return m_procFd; }

    /// The proportional memory of @p pid (`Pss_Anon` and `Pss_Shmem` of /proc/PID/smaps_rollup,
    /// proc(5), Linux 5.10+): pages shared with other processes (copy-on-write after fork,
    /// shared memory) count as their share, so a tree's sum is what it really holds. It walks
    /// the page tables, so it is read only to confirm a sum of statm that looks over a limit.
    /// A process gone since the scan holds 0; false when it is there but its share is not
    /// reported (not readable, or a kernel before 5.10).
    bool proportionalMemoryOf(pid_t pid, Memory* out) const;
    /// The inode of @p pid's PID namespace (the `ns/pid` link, proc(5)) under the proc mount
    /// open at @p procFd, or under /proc when -1; 0 when it is gone or unreadable.
    static quint64 pidNamespaceOf(pid_t pid, int procFd = -1);
    /// CPU time of a set of processes, ms (clock ticks of /proc/PID/stat converted).
    struct CpuTimes {
        qint64 userMs = 0;
        qint64 systemMs = 0;
        int processes = 0;
    };
    /// The CPU the processes of PID namespace @p pidNamespace have used: for each, its own
    /// utime/stime plus cutime/cstime (its children it has waited for; proc(5) /proc/PID/stat
    /// fields 14–17). Read just before a sandbox is killed: the namespace's teardown reaps its
    /// processes with SIGCHLD ignored (kernel/pid_namespace.c zap_pid_ns_processes), so their
    /// CPU never reaches a parent's rusage and wait4(2) of the sandbox misses it. One pass over
    /// /proc; the agent's own namespace or 0 gives nothing.
    static CpuTimes cpuOfPidNamespace(quint64 pidNamespace);
    /// utime, stime, cutime, cstime (clock ticks) of a /proc/PID/stat text; false when malformed
    /// (the command name in parentheses may itself hold spaces and ')').
    static bool cpuTicksOf(const QByteArray& stat, qint64 ticks[4]);
    /// The inode of @p pid's network namespace (the `ns/net` link, proc(5)) under this table's
    /// proc mount; 0 when it is gone or unreadable. Read afresh each call: unlike its uid or PID
    /// namespace, a process may change it (unshare(2) in a user namespace of its own). The link
    /// itself stays open (O_PATH | O_NOFOLLOW) from the first call and is read with an empty
    /// path (readlinkat(2)): no path walk, which took most of the time through /proc/PID.
    /// A value read fewer than @p maxAgeScans scans ago is returned as it is (0: always read).
    quint64 networkNamespaceOf(pid_t pid, quint64 maxAgeScans = 0);
    /// The value of a `Name:   123 kB` line of a /proc text, bytes; -1 when absent.
    static qint64 kbFieldOf(const QByteArray& text, const char* name);

    /// The inode number of a namespace link target of @p kind, e.g. "pid:[4026531836]" for
    /// "pid"; 0 when malformed or of another kind.
    static quint64 namespaceInodeOf(const QByteArray& linkTarget, const char* kind = "pid");
    /// The real uid on the `Uid:` line of a /proc/PID/status text; uid_t(-1) when absent.
    static uid_t realUidOf(const QByteArray& status);
    /// `RssShmem:` of a status text, bytes; 0 when absent.
    static qint64 rssShmemOf(const QByteArray& status);

private:
    static void closeFds(Entry* entry);
    /// A live thread of @p pid other than its leader, whose statm shows memory; 0 when none.
    pid_t liveThreadOf(pid_t pid) const;
    bool classify(pid_t pid, Entry* entry, bool readNamespace) const;

    QString m_procRoot;
    int m_procFd = -1;
    QHash<pid_t, Entry> m_entries;
    quint64 m_scan = 0;
    qint64 m_pageSize = 4096;
};

} // namespace runbox::bounds
