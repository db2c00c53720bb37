#include "agent/bounds/SharedMemoryScan.h"

#include "agent/bounds/NumericEntries.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <vector>

namespace runbox::bounds {

namespace {

/// Whether tasks @p a and @p b share one descriptor table (kcmp(2) KCMP_FILES: 0 = the same).
/// An error (no permission, a kernel without CONFIG_KCMP, a task gone) reads as different, so
/// that the table is read rather than skipped.
bool sameDescriptorTable(pid_t a, pid_t b) {
    return ::syscall(SYS_kcmp, a, b, KCMP_FILES, 0, 0) == 0;
}

/// Parses a hex number at @p p up to a character not hex; advances @p p.
quint64 hexAt(const char*& p, const char* end) {
    quint64 value = 0;
    for (; p < end; ++p) {
        const char c = *p;
        const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (digit < 0)
            break;
        value = value * 16 + quint64(digit);
    }
    return value;
}

const char* skipField(const char* p, const char* end) {
    while (p < end && *p != ' ')
        ++p;
    while (p < end && *p == ' ')
        ++p;
    return p;
}

} // namespace

SharedMemoryScan::SharedMemoryScan(int procFd) : m_procFd(procFd), m_device(internalDevice()) {}

dev_t SharedMemoryScan::internalDevice() {
    // memfd_create(2), MAP_SHARED | MAP_ANONYMOUS (shmem_zero_setup) and shmget(2) all make
    // their files on the one internal mount of mm/shmem.c (shm_mnt), so one memfd tells it.
    static const dev_t device = [] {
        const int fd = ::memfd_create("runbox-shm-probe", MFD_CLOEXEC);
        if (fd < 0)
            return dev_t(0);
        struct stat st {};
        const dev_t dev = ::fstat(fd, &st) == 0 ? st.st_dev : dev_t(0);
        ::close(fd);
        return dev;
    }();
    return device;
}

bool SharedMemoryScan::mapFilesReadable() {
    // Tried on a one-page mapping of a memfd of this process's own: map_files lists file-backed
    // mappings only, and the first line of /proc/self/maps need not be one (under ASan it is
    // the shadow memory), so an anonymous first mapping would read as "not permitted".
    static const bool readable = [] {
        const int fd = ::memfd_create("runbox-map-files-probe", MFD_CLOEXEC);
        if (fd < 0)
            return false;
        const long page = ::sysconf(_SC_PAGESIZE);
        void* const at = ::ftruncate(fd, page) == 0
                             ? ::mmap(nullptr, size_t(page), PROT_READ, MAP_SHARED, fd, 0)
                             : MAP_FAILED;
        ::close(fd);
        if (at == MAP_FAILED)
            return false;
        const auto start = reinterpret_cast<unsigned long>(at);
        char path[96];
        std::snprintf(path, sizeof path, "/proc/self/map_files/%lx-%lx", start,
                      start + static_cast<unsigned long>(page));
        struct stat st {};
        const bool followed = ::stat(path, &st) == 0; // EPERM without either capability
        ::munmap(at, size_t(page));
        return followed;
    }();
    return readable;
}

QList<SharedMemoryScan::Mapping> SharedMemoryScan::mappingsOn(const QByteArray& maps,
                                                              dev_t device) {
    QList<Mapping> found;
    const char* p = maps.constData();
    const char* const end = p + maps.size();
    while (p < end) {
        const char* lineEnd = static_cast<const char*>(std::memchr(p, '\n', size_t(end - p)));
        if (!lineEnd)
            lineEnd = end;
        // "7f2d0aa49000-7f2d0aa4a000 rw-s 0c7ff000 00:01 1027   /dev/zero (deleted)"
        Mapping m;
        const char* q = p;
        m.start = hexAt(q, lineEnd);
        if (q < lineEnd && *q == '-') {
            ++q;
            m.end = hexAt(q, lineEnd);
            q = skipField(skipField(q, lineEnd), lineEnd); // past the range's end, perms
            q = skipField(q, lineEnd);                     // past the offset
            const quint64 major = hexAt(q, lineEnd);
            const bool colon = q < lineEnd && *q == ':';
            const quint64 minor = colon ? hexAt(++q, lineEnd) : 0;
            if (colon && major == ::major(device) && minor == ::minor(device)) {
                for (q = skipField(q, lineEnd); q < lineEnd && *q >= '0' && *q <= '9'; ++q)
                    m.inode = m.inode * 10 + quint64(*q - '0');
                if (m.inode != 0)
                    found.append(m);
            }
        }
        p = lineEnd + 1;
    }
    return found;
}

void SharedMemoryScan::record(quint64 inode, qint64 bytes, const char* locator) {
    if (m_sized.contains(inode))
        return;
    m_sized.insert(inode);
    m_result.bytes += bytes;
    m_result.objects.append({inode, bytes, QByteArray(locator)});
}

qint64 SharedMemoryScan::resize(int procFd, QList<Object>* objects) {
    qint64 total = 0;
    for (Object& object : *objects) {
        struct stat st {};
        if (::fstatat(procFd, object.locator.constData(), &st, 0) != 0 ||
            st.st_dev != internalDevice() || st.st_ino != object.inode)
            return -1;
        object.bytes = qint64(st.st_blocks) * 512;
        total += object.bytes;
    }
    return total;
}

void SharedMemoryScan::addDescriptorTable(pid_t task) {
    char path[64];
    std::snprintf(path, sizeof path, "%d/fd", int(task));
    const int dirFd = ::openat(m_procFd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd < 0)
        return; // gone, or an exited leader's
    forEachNumericEntry(dirFd, [&](const char* name, long, quint64) {
        // stat(2) through the magic link: the open file's inode, without opening anything.
        struct stat st {};
        if (::fstatat(dirFd, name, &st, 0) == 0 && st.st_dev == m_device && S_ISREG(st.st_mode) &&
            !m_sized.contains(st.st_ino)) {
            std::snprintf(path, sizeof path, "%d/fd/%s", int(task), name);
            record(st.st_ino, qint64(st.st_blocks) * 512, path);
        }
    });
    ::close(dirFd);
}

void SharedMemoryScan::addMappings(pid_t pid, pid_t memoryTask) {
    char path[96];
    std::snprintf(path, sizeof path, "%d/maps", int(memoryTask));
    const int fd = ::openat(m_procFd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    m_buffer.resize(qMax<qsizetype>(m_buffer.size(), 65536));
    qsizetype used = 0;
    for (;;) {
        if (used == m_buffer.size())
            m_buffer.resize(m_buffer.size() * 2);
        const ssize_t n = ::read(fd, m_buffer.data() + used, size_t(m_buffer.size() - used));
        if (n <= 0)
            break;
        used += n;
    }
    ::close(fd);
    bool unsized = false;
    for (const Mapping& m :
         mappingsOn(QByteArray::fromRawData(m_buffer.constData(), used), m_device)) {
        if (m_sized.contains(m.inode))
            continue;
        if (!m_unsizable.contains(m.inode)) {
            // map_files names are "%lx-%lx" (no padding, unlike maps); of a thread's mm too.
            std::snprintf(path, sizeof path, "%d/map_files/%llx-%llx", int(memoryTask),
                          static_cast<unsigned long long>(m.start),
                          static_cast<unsigned long long>(m.end));
            struct stat st {};
            if (::fstatat(m_procFd, path, &st, 0) == 0 && st.st_dev == m_device &&
                st.st_ino == m.inode) {
                record(m.inode, qint64(st.st_blocks) * 512, path);
                continue;
            }
            m_unsizable.insert(m.inode); // EPERM without the capability; or unmapped meanwhile
        }
        unsized = true;
    }
    if (unsized)
        m_result.unsized.append(pid);
}

void SharedMemoryScan::add(pid_t pid, pid_t memoryTask) {
    if (m_procFd < 0 || m_device == 0)
        return;
    char path[64];
    std::snprintf(path, sizeof path, "%d/task", int(pid));
    const int taskFd = ::openat(m_procFd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    std::vector<pid_t> tables; // one task per distinct descriptor table read
    if (taskFd >= 0) {
        forEachNumericEntry(taskFd, [&](const char*, long number, quint64) {
            const pid_t tid = pid_t(number);
            for (const pid_t read : tables)
                if (sameDescriptorTable(read, tid))
                    return;
            tables.push_back(tid);
            addDescriptorTable(tid);
        });
        ::close(taskFd);
    }
    addMappings(pid, memoryTask);
}

} // namespace runbox::bounds
