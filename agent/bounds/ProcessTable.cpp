#include "agent/bounds/ProcessTable.h"

#include "agent/bounds/NumericEntries.h"

#include <QFile>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace runbox::bounds {

namespace {

/// Reads a small /proc file relative to @p dirFd, at most @p max bytes.
QByteArray readAt(int dirFd, const char* path, int max = 4096) {
    const int fd = ::openat(dirFd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return {};
    QByteArray buffer(max, Qt::Uninitialized);
    const ssize_t n = ::read(fd, buffer.data(), std::size_t(max));
    ::close(fd);
    buffer.resize(n > 0 ? n : 0);
    return buffer;
}

/// Calls @p visit(pid, inode) for each process directory of the /proc open as @p procFd.
template <typename Visit> void forEachPid(int procFd, Visit&& visit) {
    forEachNumericEntry(procFd, [&](const char*, long pid, quint64 inode) {
        if (pid > 0)
            visit(pid_t(pid), inode);
    });
}

} // namespace

ProcessTable::ProcessTable(QString procRoot) : m_procRoot(std::move(procRoot)) {
    m_procFd =
        ::open(QFile::encodeName(m_procRoot).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const long page = ::sysconf(_SC_PAGESIZE);
    if (page > 0)
        m_pageSize = page;
}

ProcessTable::~ProcessTable() {
    for (Entry& e : m_entries)
        closeFds(&e);
    if (m_procFd >= 0)
        ::close(m_procFd);
}

quint64 ProcessTable::namespaceInodeOf(const QByteArray& linkTarget, const char* kind) {
    const qsizetype open = linkTarget.indexOf('[');
    const qsizetype close = linkTarget.indexOf(']');
    if (!linkTarget.startsWith(QByteArray(kind) + ":[") || open < 0 || close <= open + 1)
        return 0;
    bool ok = false;
    const quint64 inode = linkTarget.mid(open + 1, close - open - 1).toULongLong(&ok);
    return ok ? inode : 0;
}

uid_t ProcessTable::realUidOf(const QByteArray& status) {
    const qsizetype at = status.indexOf("\nUid:");
    if (at < 0)
        return uid_t(-1);
    const qsizetype end = status.indexOf('\n', at + 1);
    const QList<QByteArray> fields = status.mid(at + 5, end - at - 5).simplified().split(' ');
    bool ok = false;
    const qulonglong uid = fields.value(0).toULongLong(&ok);
    return ok ? uid_t(uid) : uid_t(-1);
}

qint64 ProcessTable::rssShmemOf(const QByteArray& status) {
    const qsizetype at = status.indexOf("\nRssShmem:");
    if (at < 0)
        return 0;
    const qsizetype end = status.indexOf('\n', at + 1);
    const QList<QByteArray> fields = status.mid(at + 10, end - at - 10).simplified().split(' ');
    return fields.value(0).toLongLong() * 1024; // "RssShmem:   1234 kB"
}

qint64 ProcessTable::kbFieldOf(const QByteArray& text, const char* name) {
    const QByteArray key = QByteArray("\n") + name;
    const qsizetype at = ('\n' + text).indexOf(key);
    if (at < 0)
        return -1;
    const qsizetype from = at + key.size() - 1; // in text: '\n' was prepended
    const qsizetype end = text.indexOf('\n', from);
    return text.mid(from, end < 0 ? -1 : end - from).simplified().split(' ').value(0).toLongLong() *
           1024;
}

bool ProcessTable::proportionalMemoryOf(pid_t pid, Memory* out) const {
    char path[64];
    std::snprintf(path, sizeof path, "%d/smaps_rollup", int(memoryTaskOf(pid)));
    const QByteArray rollup = readAt(m_procFd, path);
    const qint64 anon = kbFieldOf(rollup, "Pss_Anon:");
    *out = {};
    if (anon >= 0) {
        out->anonBytes = anon;
        out->shmemBytes = std::max<qint64>(0, kbFieldOf(rollup, "Pss_Shmem:"));
        return true;
    }
    // Gone since the scan: it holds nothing. Present but unread (not ptrace-readable, or a
    // kernel before 5.10 without Pss_Anon): unknown.
    std::snprintf(path, sizeof path, "%d", int(pid));
    struct stat st {};
    return ::fstatat(m_procFd, path, &st, 0) != 0 && errno == ENOENT;
}

quint64 ProcessTable::pidNamespaceOf(pid_t pid, int procFd) {
    char path[64];
    if (procFd >= 0)
        std::snprintf(path, sizeof path, "%d/ns/pid", int(pid));
    else
        std::snprintf(path, sizeof path, "/proc/%d/ns/pid", int(pid));
    char target[64];
    const ssize_t n =
        ::readlinkat(procFd >= 0 ? procFd : AT_FDCWD, path, target, sizeof target - 1);
    return n > 0 ? namespaceInodeOf(QByteArray(target, int(n))) : 0;
}

bool ProcessTable::cpuTicksOf(const QByteArray& stat, qint64 ticks[4]) {
    const qsizetype close = stat.lastIndexOf(')');
    if (close < 0)
        return false;
    // After "pid (comm) ": field 3 (state) is index 0, so utime (field 14) is index 11.
    const QList<QByteArray> fields = stat.mid(close + 2).split(' ');
    if (fields.size() < 15)
        return false;
    for (int i = 0; i < 4; ++i) {
        bool ok = false;
        ticks[i] = fields[11 + i].toLongLong(&ok);
        if (!ok || ticks[i] < 0)
            return false;
    }
    return true;
}

ProcessTable::CpuTimes ProcessTable::cpuOfPidNamespace(quint64 pidNamespace) {
    CpuTimes total;
    if (pidNamespace == 0 || pidNamespace == pidNamespaceOf(::getpid()))
        return total;
    const int procFd = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (procFd < 0)
        return total;
    const long hz = ::sysconf(_SC_CLK_TCK) > 0 ? ::sysconf(_SC_CLK_TCK) : 100;
    qint64 userTicks = 0, systemTicks = 0;
    forEachPid(procFd, [&](pid_t pid, quint64) {
        if (pidNamespaceOf(pid, procFd) != pidNamespace)
            return;
        char path[64];
        std::snprintf(path, sizeof path, "%d/stat", int(pid));
        qint64 ticks[4];
        if (!cpuTicksOf(readAt(procFd, path), ticks))
            return;
        userTicks += ticks[0] + ticks[2];
        systemTicks += ticks[1] + ticks[3];
        ++total.processes;
    });
    ::close(procFd);
    total.userMs = userTicks * 1000 / hz;
    total.systemMs = systemTicks * 1000 / hz;
    return total;
}

void ProcessTable::closeFds(Entry* entry) {
    for (int* fd : {&entry->statmFd, &entry->netLinkFd}) {
        if (*fd >= 0)
            ::close(*fd);
        *fd = -1;
    }
}

quint64 ProcessTable::networkNamespaceOf(pid_t pid, quint64 maxAgeScans) {
    const auto it = m_entries.find(pid);
    if (it == m_entries.end())
        return 0;
    if (it->netNamespace != 0 && m_scan - it->netScan < maxAgeScans)
        return it->netNamespace;
    if (it->netLinkFd < 0) {
        char path[64];
        std::snprintf(path, sizeof path, "%d/ns/net", int(pid));
        it->netLinkFd = ::openat(m_procFd, path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (it->netLinkFd < 0)
            return 0;
    }
    char target[64];
    const ssize_t n = ::readlinkat(it->netLinkFd, "", target, sizeof target - 1);
    it->netNamespace = n > 0 ? namespaceInodeOf(QByteArray(target, int(n)), "net") : 0;
    it->netScan = m_scan;
    return it->netNamespace;
}

bool ProcessTable::classify(pid_t pid, Entry* entry, bool readNamespace) const {
    char path[64];
    std::snprintf(path, sizeof path, "%d/status", int(pid));
    entry->uid = realUidOf(readAt(m_procFd, path));
    if (entry->uid == uid_t(-1))
        return false;
    if (readNamespace)
        entry->pidNamespace = pidNamespaceOf(pid, m_procFd);
    return true;
}

int ProcessTable::refresh(bool readNamespaces, bool recheckRoot) {
    if (m_procFd < 0)
        return 0;
    int seen = 0;
    ++m_scan;
    forEachPid(m_procFd, [&](pid_t pid, quint64 inode) {
        ++seen;
        auto it = m_entries.find(pid);
        if (it != m_entries.end() && it->procInode == inode &&
            (!readNamespaces || it->pidNamespace != 0) &&
            !(recheckRoot && it->uid == 0 && m_scan - it->firstScan < kRootRecheckScans)) {
            it->lastScan = m_scan;
            return;
        }
        if (it != m_entries.end() && it->procInode != inode)
            closeFds(&*it); // the pid was reused: the old process is gone
        Entry fresh;
        fresh.procInode = inode;
        fresh.firstScan = m_scan;
        if (it != m_entries.end() && it->procInode == inode)
            fresh = *it; // same process, re-read (root) or its namespace newly wanted
        fresh.lastScan = m_scan;
        if (classify(pid, &fresh, readNamespaces)) {
            m_entries.insert(pid, fresh);
        } else { // gone meanwhile: its descriptors go with it
            closeFds(&fresh);
            m_entries.remove(pid);
        }
    });
    for (auto it = m_entries.begin(); it != m_entries.end();) {
        if (it->lastScan == m_scan) {
            ++it;
            continue;
        }
        closeFds(&*it);
        it = m_entries.erase(it);
    }
    return seen;
}

pid_t ProcessTable::memoryTaskOf(pid_t pid) const {
    const auto it = m_entries.constFind(pid);
    return it != m_entries.cend() && it->memoryTask > 0 ? it->memoryTask : pid;
}

pid_t ProcessTable::liveThreadOf(pid_t pid) const {
    char path[64];
    std::snprintf(path, sizeof path, "%d/task", int(pid));
    const int taskFd = ::openat(m_procFd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (taskFd < 0)
        return 0;
    pid_t live = 0;
    forEachPid(taskFd, [&](pid_t tid, quint64) {
        if (live != 0 || tid == pid)
            return;
        std::snprintf(path, sizeof path, "%d/statm", int(tid));
        const QByteArray statm = readAt(m_procFd, path, 64);
        if (std::strtoll(statm.constData(), nullptr, 10) > 0) // its size: 0 once it has exited
            live = tid;
    });
    ::close(taskFd);
    return live;
}

bool ProcessTable::memoryOf(pid_t pid, qint64 shmemProbeBytes, Memory* out) {
    auto it = m_entries.find(pid);
    if (it == m_entries.end())
        return false;
    char path[64];
    long long size = 0, resident = 0, shared = 0;
    // Twice at most: once more when the thread read so far has exited, or when the leader's
    // statm reads empty (it has exited: a zombie, while its other threads run on).
    for (int attempt = 0;; ++attempt) {
        if (it->statmFd < 0) {
            std::snprintf(path, sizeof path, "%d/statm", int(memoryTaskOf(pid)));
            it->statmFd = ::openat(m_procFd, path, O_RDONLY | O_CLOEXEC);
            if (it->statmFd < 0)
                return false;
        }
        char text[160];
        const ssize_t n = ::pread(it->statmFd, text, sizeof text - 1, 0);
        if (n > 0) {
            text[n] = '\0';
            // statm: size resident shared text lib data dt, in pages (proc(5)); shared = file +
            // shmem.
            if (std::sscanf(text, "%lld %lld %lld", &size, &resident, &shared) != 3)
                return false;
        }
        const bool threadGone = n <= 0 && it->memoryTask > 0;
        const bool leaderGone = n > 0 && size == 0 && it->memoryTask == 0;
        if (attempt > 0 || (!threadGone && !leaderGone)) {
            if (n <= 0)
                return false; // gone (ESRCH): refresh() drops it
            break;
        }
        ::close(it->statmFd);
        it->statmFd = -1;
        it->memoryTask = liveThreadOf(pid);
        if (it->memoryTask == 0) { // no live thread: it holds no memory of its own
            *out = {};
            return n > 0 || leaderGone;
        }
    }
    out->anonBytes = qMax(0ll, resident - shared) * m_pageSize;
    out->shmemBytes = 0;
    if (shared * m_pageSize > shmemProbeBytes) {
        std::snprintf(path, sizeof path, "%d/status", int(memoryTaskOf(pid)));
        out->shmemBytes = rssShmemOf(readAt(m_procFd, path));
    }
    return true;
}

} // namespace runbox::bounds
