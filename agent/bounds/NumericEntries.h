#pragma once

#include <QtGlobal>

#include <cstdlib>
#include <sys/syscall.h>
#include <unistd.h>

namespace runbox::bounds {

/// One getdents64 record (getdents64(2)).
struct LinuxDirent64 {
    quint64 d_ino;
    qint64 d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/// Calls @p visit(name, number, inode) for each entry of the directory open as @p dirFd whose
/// name starts with a digit (/proc's pids, a task's tids, a descriptor table's fds), from the
/// directory's start: getdents64(2), no allocation, no QDir. Stops at the end or an error.
template <typename Visit> void forEachNumericEntry(int dirFd, Visit&& visit) {
    ::lseek(dirFd, 0, SEEK_SET);
    alignas(LinuxDirent64) char buffer[32768];
    for (;;) {
        const long n = ::syscall(SYS_getdents64, dirFd, buffer, sizeof buffer);
        if (n <= 0)
            return;
        for (long offset = 0; offset < n;) {
            const auto* d = reinterpret_cast<const LinuxDirent64*>(buffer + offset);
            offset += d->d_reclen;
            if (d->d_name[0] >= '0' && d->d_name[0] <= '9')
                visit(static_cast<const char*>(d->d_name), std::strtol(d->d_name, nullptr, 10),
                      quint64(d->d_ino));
        }
    }
}

} // namespace runbox::bounds
