// bench/memory_watchdog: the CPU cost of the memory watchdog (agent/bounds/MemoryWatchdog,
// docs/bounds.md "Watchdog") with E executions of P processes each, every execution under a uid
// of its own, scanned at its natural rate (100 ms while far from the limits) for S seconds.
// Baseline of the same run: the floor of any /proc-based watchdog, one bare readdir of /proc per
// scan. Target: under 2 % of one core for 16 × 50. Each execution is under --limit-mib (default:
// the agent's default maxMemoryBytes, half the RAM); the due-time schedule reads a watch far
// below its limit less often (MemoryWatchdog::intervalFor), the every-scan figure of the same
// run is the schedule without it.
// With --unix-sockets every watch also counts its uid's unix socket buffers (light workspaces,
// docs/bounds.md "Unix socket buffers"); with --sleeper-sockets each sleeper holds a socketpair
// (its namespace is then dumped every scan); --host-sockets N adds N sockets of the bench's own
// (root) to the host's namespace, which every dump lists. With --sleeper-memfd each sleeper holds
// a 1 MiB memfd, so every watch looks for its shared memory objects (descriptors, maps) at every
// measurement (docs/bounds.md "Shared memory objects"); without it they are looked for once.
// With --host-shmem-churn M the bench itself (no watch's) maps and touches M MiB of shared memory
// before every other pair of scans and frees it before the next: growth no watch explains, which
// makes every watch whose half headroom is below M look for objects again.
//
// Usage (as root): bench_memory_watchdog [--executions E] [--processes P] [--seconds S]
//                  [--unix-sockets] [--sleeper-sockets] [--host-sockets N] [--sleeper-memfd]
//                  [--host-shmem-churn M] [--limit-mib L]
#include "agent/bounds/MemoryWatchdog.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTextStream>

#include <csignal>
#include <cstring>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <vector>

using runbox::bounds::Membership;
using runbox::bounds::MemoryWatchdog;

namespace {

constexpr uid_t kFirstUid = 62000;

/// CPU of the calling thread (clock_gettime(2) CLOCK_THREAD_CPUTIME_ID: scheduler time, not
/// ticks), seconds.
double threadCpuSeconds() {
    timespec t{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}

double cpuSecondsOfSelf() {
    rusage ru{};
    ::getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/// Forks @p count sleepers under @p uid, each holding a socketpair when @p sockets and a 1 MiB
/// memfd when @p memfd; returns their pids.
std::vector<pid_t> startSleepers(uid_t uid, int count, bool sockets, bool memfd) {
    std::vector<pid_t> pids;
    for (int i = 0; i < count; ++i) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            if (::setgid(uid) != 0 || ::setuid(uid) != 0)
                ::_exit(1);
            int pair[2];
            if (sockets && ::socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0)
                ::_exit(1);
            static char page[4096];
            const int fd = memfd ? ::memfd_create("bench", 0) : -1;
            for (int i = 0; fd >= 0 && i < 256; ++i)
                if (::write(fd, page, sizeof page) != ssize_t(sizeof page))
                    ::_exit(1);
            ::pause();
            ::_exit(0);
        }
        if (pid > 0)
            pids.push_back(pid);
    }
    return pids;
}

/// The floor: one readdir pass of /proc, @p rounds times; CPU seconds per pass.
double readdirFloor(int rounds) {
    const double before = cpuSecondsOfSelf();
    for (int r = 0; r < rounds; ++r) {
        DIR* dir = ::opendir("/proc");
        if (!dir)
            return 0;
        while (::readdir(dir) != nullptr) {
        }
        ::closedir(dir);
    }
    return (cpuSecondsOfSelf() - before) / rounds;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    int executions = 16, processes = 50, seconds = 5, hostSockets = 0, churnMib = 0;
    // The agent's default maxMemoryBytes: half the physical memory (store::QuotaSettings).
    qint64 limitBytes = qint64(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGESIZE) / 2;
    const bool unixSockets = args.contains(QStringLiteral("--unix-sockets"));
    const bool sleeperSockets = args.contains(QStringLiteral("--sleeper-sockets"));
    const bool sleeperMemfd = args.contains(QStringLiteral("--sleeper-memfd"));
    for (int i = 1; i + 1 < args.size(); ++i) {
        if (args[i] == QLatin1String("--executions"))
            executions = qBound(1, args[i + 1].toInt(), 256);
        else if (args[i] == QLatin1String("--processes"))
            processes = qBound(1, args[i + 1].toInt(), 1000);
        else if (args[i] == QLatin1String("--seconds"))
            seconds = qBound(1, args[i + 1].toInt(), 600);
        else if (args[i] == QLatin1String("--host-sockets"))
            hostSockets = qBound(0, args[i + 1].toInt(), 1 << 20);
        else if (args[i] == QLatin1String("--host-shmem-churn"))
            churnMib = qBound(0, args[i + 1].toInt(), 1 << 16);
        else if (args[i] == QLatin1String("--limit-mib"))
            limitBytes = qMax(1LL, args[i + 1].toLongLong()) << 20;
    }
    if (::geteuid() != 0) {
        std::fprintf(stderr, "bench_memory_watchdog needs root (processes under other uids)\n");
        return 1;
    }
    std::vector<pid_t> sleepers;
    for (int e = 0; e < executions; ++e) {
        const std::vector<pid_t> pids =
            startSleepers(kFirstUid + uid_t(e), processes, sleeperSockets, sleeperMemfd);
        sleepers.insert(sleepers.end(), pids.begin(), pids.end());
    }
    // The host sockets, and two descriptors per member the watchdog keeps open (statm, ns).
    const rlim_t needed = rlim_t(hostSockets + 2 * executions * processes + 1024);
    const rlimit files{needed, needed};
    if (::setrlimit(RLIMIT_NOFILE, &files) != 0)
        std::fprintf(stderr, "cannot raise RLIMIT_NOFILE for %d sockets\n", hostSockets);
    for (int i = 0; i + 1 < hostSockets; i += 2) {
        int pair[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0) {
            std::fprintf(stderr, "socketpair: %d host sockets made\n", i);
            break;
        }
    }
    // Two watchdogs over the same executions, driven alternately every 50 ms (so each sees
    // one call per 100 ms, as its timer would at most, and both see the same machine):
    // "every scan" measures every watch each call (the schedule before due times), "due" only
    // the watches whose interval (MemoryWatchdog::intervalFor) has passed.
    MemoryWatchdog everyScan, dueOnly;
    for (int e = 0; e < executions; ++e) {
        const MemoryWatchdog::Watch w{
            {Membership::By::Uid, kFirstUid + quint64(e)}, limitBytes, {}, {}, unixSockets};
        everyScan.watch(w);
        dueOnly.watch(w);
    }
    int scans = 0, seen = 0, dueScans = 0;
    double everyCpu = 0, dueCpu = 0, everyFirst = 0, dueFirst = 0;
    QElapsedTimer wall;
    wall.start();
    void* churn = nullptr;
    const std::size_t churnBytes = std::size_t(churnMib) << 20;
    while (wall.elapsed() < qint64(seconds) * 1000) {
        if (churn) {
            ::munmap(churn, churnBytes);
            churn = nullptr;
        } else if (churnBytes > 0 && scans % 2 == 0) {
            churn = ::mmap(nullptr, churnBytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                           -1, 0);
            if (churn == MAP_FAILED)
                churn = nullptr;
            else
                std::memset(churn, 1, churnBytes);
        }
        double before = threadCpuSeconds();
        seen = everyScan.scanNow();
        everyCpu += threadCpuSeconds() - before;
        if (scans == 0)
            everyFirst = everyCpu;
        ::usleep(50000);
        before = threadCpuSeconds();
        dueScans += dueOnly.scanDue() > 0 ? 1 : 0;
        dueCpu += threadCpuSeconds() - before;
        if (scans == 0)
            dueFirst = dueCpu;
        ++scans;
        ::usleep(50000);
    }
    const double cpu = everyCpu;
    const double elapsed = double(wall.elapsed()) / 1000.0;
    const double floor = readdirFloor(200);
    for (pid_t pid : sleepers)
        ::kill(pid, SIGKILL);
    for (pid_t pid : sleepers)
        ::waitpid(pid, nullptr, 0);

    const double perScanMs = cpu * 1000.0 / scans;
    const double percentAt10Hz = perScanMs; // ms of CPU per 100 ms = % of one core
    QTextStream out(stdout);
    out << QStringLiteral("memory_watchdog: %1 executions x %2 processes, %3 processes seen, "
                          "%4 s, unix sockets %5 (sleepers %6, %7 host sockets)\n")
               .arg(executions)
               .arg(processes)
               .arg(seen)
               .arg(elapsed, 0, 'f', 1)
               .arg(unixSockets ? QStringLiteral("counted") : QStringLiteral("not counted"))
               .arg(sleeperSockets ? QStringLiteral("hold a socketpair each")
                                   : QStringLiteral("hold none"))
               .arg(hostSockets);
    out << QStringLiteral("  shared memory objects  looked for %1 times (every scan: %2; sleepers "
                          "hold a memfd: %3; host churn %4 MiB)\n")
               .arg(dueOnly.sharedMemoryScans())
               .arg(everyScan.sharedMemoryScans())
               .arg(sleeperMemfd ? QStringLiteral("yes") : QStringLiteral("no"))
               .arg(churnMib);
    out << QStringLiteral("  floor (readdir /proc)  %1 ms per scan\n").arg(floor * 1000, 0, 'f', 3);
    out << QStringLiteral("  watchdog scan          %1 ms per scan  (ratio %2x the floor)\n")
               .arg(perScanMs, 0, 'f', 3)
               .arg(perScanMs / qMax(1e-6, floor * 1000), 0, 'f', 1);
    out << QStringLiteral("  CPU at 10 scans/s      %1 % of one core  (every watch every scan)\n")
               .arg(percentAt10Hz, 0, 'f', 2);
    out << QStringLiteral("  due watches only       %1 % of one core  (target < 2 %; limit %2 MiB, "
                          "%3 of %4 calls scanned)\n")
               .arg(dueCpu * 1000.0 / scans, 0, 'f', 2)
               .arg(limitBytes >> 20)
               .arg(dueScans)
               .arg(scans);
    // The first call classifies every process and looks for every watch's objects once; the
    // figures above include it, these do not (what a long-running host pays).
    const int later = qMax(1, scans - 1);
    out << QStringLiteral("  first scan             %1 ms (every scan), %2 ms (due)\n")
               .arg(everyFirst * 1000.0, 0, 'f', 1)
               .arg(dueFirst * 1000.0, 0, 'f', 1);
    out << QStringLiteral("  without the first      %1 ms per scan (every scan), %2 % of one core "
                          "(due watches only)\n")
               .arg((everyCpu - everyFirst) * 1000.0 / later, 0, 'f', 3)
               .arg((dueCpu - dueFirst) * 1000.0 / later, 0, 'f', 2);
    return 0;
}
