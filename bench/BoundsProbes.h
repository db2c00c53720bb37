#pragma once
// bench/bounds' views of the host, read from /proc and the disk beside the agent's own figures
// (so that the agent's word is not the only source): statistics, an allocator's VmHWM, disk use
// of a workspace, the host's CPU share and the CPU of marked processes.

#include <QByteArray>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QList>
#include <QString>
#include <QStringList>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace runbox::boundsbench {

/// The median of @p v (0 when empty).
inline double median(std::vector<double> v) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// The largest of @p v (0 when empty).
inline double maxOf(const std::vector<double>& v) {
    return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

/// The @p p quantile of @p v (0..1, nearest rank; 0 when empty).
inline double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[size_t(p * double(v.size() - 1) + 0.5)];
}

/// Reads up to 4 KiB of a /proc file; empty when it is gone.
inline QByteArray readProc(const char* path) {
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return {};
    char buf[4096];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    ::close(fd);
    return n > 0 ? QByteArray(buf, int(n)) : QByteArray();
}

/// The highest VmHWM (proc(5) /proc/PID/status: peak resident set) of the sandboxed
/// `/usr/bin/python3 -c CODE` whose CODE starts with a marker, polled every millisecond from a
/// thread of its own until stop(): a view of the allocator's peak that does not depend on the
/// agent's watchdog (its recorded peak is only what its own scans caught before the kill).
class HwmSampler final {
public:
    explicit HwmSampler(QByteArray marker)
        : m_prefix(QByteArray("/usr/bin/python3\0-c\0", 20) + marker), m_thread([this] { run(); }) {
    }
    ~HwmSampler() { stop(); }
    HwmSampler(const HwmSampler&) = delete;
    HwmSampler& operator=(const HwmSampler&) = delete;
    /// Ends the polling; returns the highest VmHWM seen in bytes (0: the process was not seen).
    qint64 stop() {
        m_stop = true;
        if (m_thread.joinable())
            m_thread.join();
        return m_peakBytes;
    }

private:
    pid_t find() const {
        DIR* proc = ::opendir("/proc");
        pid_t found = 0;
        while (dirent* e = proc ? ::readdir(proc) : nullptr) {
            const pid_t pid = pid_t(std::atoi(e->d_name));
            if (pid > 0 && readProc(qPrintable(QStringLiteral("/proc/%1/cmdline").arg(pid)))
                               .startsWith(m_prefix)) {
                found = pid;
                break;
            }
        }
        if (proc)
            ::closedir(proc);
        return found;
    }
    void run() {
        while (!m_stop) {
            const pid_t pid = find();
            const QByteArray path = QStringLiteral("/proc/%1/status").arg(pid).toLatin1();
            while (pid > 0 && !m_stop) {
                const QByteArray status = readProc(path.constData());
                const qsizetype at = status.indexOf("VmHWM:");
                if (at < 0)
                    break; // gone (or a zombie: no mm any more)
                const qint64 kib = status.mid(at + 6, 24).trimmed().split(' ').first().toLongLong();
                m_peakBytes = std::max<qint64>(m_peakBytes, kib * 1024);
                ::usleep(1000);
            }
            ::usleep(5000); // a scan of /proc costs ~1 ms here: look less often
        }
    }

    const QByteArray m_prefix;
    std::atomic<bool> m_stop{false};
    std::atomic<qint64> m_peakBytes{0};
    std::thread m_thread; ///< last: starts once the members above exist
};

/// Bytes regular files take: apparent (st_size) and allocated (st_blocks, what maxWorkspaceBytes
/// counts).
struct DiskUse {
    qint64 apparentBytes = 0;
    qint64 allocatedBytes = 0;
    qint64 larger() const { return std::max(apparentBytes, allocatedBytes); }
};

/// What the regular files under @p dir take (lstat(2), links not followed).
inline DiskUse diskUse(const QString& dir) {
    DiskUse use;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        struct stat st {};
        if (::lstat(QFile::encodeName(it.next()).constData(), &st) == 0 && S_ISREG(st.st_mode)) {
            use.apparentBytes += st.st_size;
            use.allocatedBytes += qint64(st.st_blocks) * 512;
        }
    }
    return use;
}

/// Deletes what is in @p dir but not in @p keep; stops the bench when something stays.
inline void removeAllBut(const QString& dir, const QStringList& keep) {
    const QDir d(dir);
    for (const QFileInfo& f :
         d.entryInfoList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot)) {
        if (keep.contains(f.fileName()))
            continue;
        const bool gone = f.isDir() && !f.isSymLink() ? QDir(f.filePath()).removeRecursively()
                                                      : QFile::remove(f.filePath());
        if (!gone)
            qFatal("cannot delete %s", qPrintable(f.filePath()));
    }
}

/// The host's CPU time: all of it and the busy part (not idle or iowait), in clock ticks.
struct CpuTimes {
    quint64 busy = 0;
    quint64 total = 0;
};

/// The host's CPU time so far (the `cpu` line of /proc/stat, proc(5)).
inline CpuTimes hostCpu() {
    const QList<QByteArray> f = readProc("/proc/stat").split('\n').first().simplified().split(' ');
    CpuTimes t;
    for (qsizetype i = 1; i < f.size() && i <= 8; ++i) {
        t.total += f[i].toULongLong();
        if (i != 4 && i != 5)
            t.busy += f[i].toULongLong();
    }
    return t;
}

/// The busy share (0..1) of the host's CPU time between @p a and @p b.
inline double busyShare(const CpuTimes& a, const CpuTimes& b) {
    return b.total > a.total ? double(b.busy - a.busy) / double(b.total - a.total) : 0;
}

/// CPU seconds (utime + stime, proc(5) /proc/PID/stat) of the processes whose command line
/// contains @p marker (in its first 4 KiB) now, read from the host.
inline double cpuSecondsOfMarked(const QByteArray& marker) {
    quint64 ticks = 0;
    DIR* proc = ::opendir("/proc");
    while (dirent* e = proc ? ::readdir(proc) : nullptr) {
        const int pid = std::atoi(e->d_name);
        if (pid <= 0 ||
            !readProc(qPrintable(QStringLiteral("/proc/%1/cmdline").arg(pid))).contains(marker))
            continue;
        const QByteArray stat = readProc(qPrintable(QStringLiteral("/proc/%1/stat").arg(pid)));
        const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
        if (fields.size() > 12) // utime and stime are fields 14 and 15, here 11 and 12
            ticks += fields[11].toULongLong() + fields[12].toULongLong();
    }
    if (proc)
        ::closedir(proc);
    return double(ticks) / double(::sysconf(_SC_CLK_TCK));
}

} // namespace runbox::boundsbench
