#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QSet>

#include <sys/types.h>

namespace runbox::bounds {

/// The shared memory objects an execution's processes hold (docs/bounds.md "Shared memory
/// objects"): memfds (memfd_create(2)), MAP_SHARED anonymous regions and attached SysV segments
/// are files of the kernel's internal shmem mount, and their pages stay allocated while any
/// descriptor or mapping holds the file, also the pages no process maps, which neither statm nor
/// `RssShmem` shows (2 GiB written into a memfd under a 512 MiB limit ended `completed`). One
/// pass over a watch's processes sizes each distinct such file once (`st_blocks` of stat(2)),
/// found through
/// - every descriptor table among each process's threads (`/proc/TID/fd`): a thread made without
///   CLONE_FILES has its own, and a leader that has exited shows none; kcmp(2) `KCMP_FILES`
///   tells which threads share one, so each table is read once;
/// - every mapping of one (`/proc/PID/maps`, the device of the internal mount), sized through
///   `/proc/PID/map_files/`, which the kernel follows only for a holder of CAP_SYS_ADMIN or
///   CAP_CHECKPOINT_RESTORE in the initial user namespace (proc(5)). Without either, a mapped
///   object that no descriptor holds is unsized: its process is reported, so that its mapped
///   pages still count through `RssShmem`, but its unmapped pages are not seen.
/// Not found: an object only in flight in a unix socket (SCM_RIGHTS) and SysV segments no process
/// has attached. A pass costs one directory read per descriptor table, a stat(2) per descriptor
/// and a read of maps per process (~100 us for a python3 here, mostly maps), so the watchdog
/// passes over a watch only when it starts, when the host's shared memory grew unexplained
/// past half its headroom, or when an object it held went out of reach; the objects found are
/// sized again through their locators (resize()).
class SharedMemoryScan final {
public:
    /// One object sized, and where it was found.
    struct Object {
        quint64 inode = 0;
        qint64 bytes = 0; ///< allocated bytes (st_blocks x 512)
        /// Its path under the proc mount: "PID/fd/N" or "TID/map_files/START-END".
        QByteArray locator;
    };
    /// What one pass found.
    struct Result {
        qint64 bytes = 0;      ///< sum over @ref objects
        QList<Object> objects; ///< each distinct object sized, once
        /// Processes that map an object this pass could not size (no capability to follow
        /// map_files): its mapped pages are all that can be counted of it.
        QList<pid_t> unsized;
    };

    /// @p procFd: the proc mount to read, open (not owned; -1: nothing is found).
    explicit SharedMemoryScan(int procFd);

    /// Adds the objects of process @p pid, whose memory (maps, map_files) is read through task
    /// @p memoryTask (ProcessTable::memoryTaskOf: @p pid, or a live thread once its leader has
    /// exited). An object already seen in this pass is not counted again.
    void add(pid_t pid, pid_t memoryTask);
    const Result& result() const { return m_result; }
    /// Sizes @p objects again through their locators (a stat(2) each, far cheaper than a pass)
    /// and returns their sum; -1 when one no longer leads to its object (closed, unmapped, its
    /// process gone, the name reused): then only a new pass can tell what is held.
    static qint64 resize(int procFd, QList<Object>* objects);

    /// The device of the kernel's internal shmem mount (that of a memfd of this process's own,
    /// made once and closed); 0 when memfd_create(2) fails (then nothing is found).
    static dev_t internalDevice();
    /// Whether this process may follow `/proc/PID/map_files/` (CAP_SYS_ADMIN or
    /// CAP_CHECKPOINT_RESTORE in the initial user namespace; tried once on a one-page memfd
    /// mapping of its own), i.e. whether an object only mapped can be sized.
    static bool mapFilesReadable();
    /// One mapping of a maps text on a given device.
    struct Mapping {
        quint64 start = 0;
        quint64 end = 0;
        quint64 inode = 0;
    };
    /// The mappings of a `/proc/PID/maps` text (proc(5): "start-end perms offset dev inode
    /// path", dev as hex major:minor) that are of files on device @p device.
    static QList<Mapping> mappingsOn(const QByteArray& maps, dev_t device);

private:
    void addDescriptorTable(pid_t task);
    void addMappings(pid_t pid, pid_t memoryTask);
    void record(quint64 inode, qint64 bytes, const char* locator);

    int m_procFd = -1;
    dev_t m_device = 0;
    QSet<quint64> m_sized;     ///< inodes sized in this pass
    QSet<quint64> m_unsizable; ///< inodes whose map_files could not be followed
    QByteArray m_buffer;       ///< maps text, reused
    Result m_result;
};

} // namespace runbox::bounds
