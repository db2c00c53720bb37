// bench/memory_watchdog: the CPU cost of the memory watchdog (agent/bounds/MemoryWatchdog,
// docs/bounds.md "Watchdog") with E executions of P processes each, every execution under a uid
// of its own, scanned at its natural rate (100 ms while far from the limits) for S seconds.
// Baseline of the same run: the floor of any /proc-based watchdog, one bare readdir of /proc per
// scan. Target: under 2 % of one core for 16 × 50.
// With --unix-sockets every watch also counts its uid's unix socket buffers (light workspaces,
// docs/bounds.md "Unix socket buffers"); with --sleeper-sockets each sleeper holds a socketpair
// (its namespace is then dumped every scan); --host-sockets N adds N sockets of the bench's own
// (root) to the host's namespace, which every dump lists.
//
// Usage (as root): bench_memory_watchdog [--executions E] [--processes P] [--seconds S]
//                  [--unix-sockets] [--sleeper-sockets] [--host-sockets N]
#include "agent/bounds/MemoryWatchdog.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTextStream>

#include <csignal>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

using runbox::bounds::Membership;
using runbox::bounds::MemoryWatchdog;

namespace {

constexpr uid_t kFirstUid = 62000;

double cpuSecondsOfSelf() {
    rusage ru{};
    ::getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/// Forks @p count sleepers under @p uid, each holding a socketpair when @p sockets; returns their
/// pids.
std::vector<pid_t> startSleepers(uid_t uid, int count, bool sockets) {
    std::vector<pid_t> pids;
    for (int i = 0; i < count; ++i) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            if (::setgid(uid) != 0 || ::setuid(uid) != 0)
                ::_exit(1);
            int pair[2];
            if (sockets && ::socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0)
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
    int executions = 16, processes = 50, seconds = 5, hostSockets = 0;
    const bool unixSockets = args.contains(QStringLiteral("--unix-sockets"));
    const bool sleeperSockets = args.contains(QStringLiteral("--sleeper-sockets"));
    for (int i = 1; i + 1 < args.size(); ++i) {
        if (args[i] == QLatin1String("--executions"))
            executions = qBound(1, args[i + 1].toInt(), 256);
        else if (args[i] == QLatin1String("--processes"))
            processes = qBound(1, args[i + 1].toInt(), 1000);
        else if (args[i] == QLatin1String("--seconds"))
            seconds = qBound(1, args[i + 1].toInt(), 600);
        else if (args[i] == QLatin1String("--host-sockets"))
            hostSockets = qBound(0, args[i + 1].toInt(), 1 << 20);
    }
    if (::geteuid() != 0) {
        std::fprintf(stderr, "bench_memory_watchdog needs root (processes under other uids)\n");
        return 1;
    }
    std::vector<pid_t> sleepers;
    for (int e = 0; e < executions; ++e) {
        const std::vector<pid_t> pids =
            startSleepers(kFirstUid + uid_t(e), processes, sleeperSockets);
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
    MemoryWatchdog dog;
    for (int e = 0; e < executions; ++e)
        dog.watch({{Membership::By::Uid, kFirstUid + quint64(e)}, 1ll << 40, {}, {}, unixSockets});
    // Scans driven here, 100 ms apart, as the watchdog's timer runs them far from any limit (no
    // event loop runs, so its own timer never fires and every scan is counted).
    int scans = 0, seen = 0;
    QElapsedTimer wall;
    wall.start();
    const double cpuBefore = cpuSecondsOfSelf();
    while (wall.elapsed() < qint64(seconds) * 1000) {
        seen = dog.scanNow();
        ++scans;
        ::usleep(100000);
    }
    const double cpu = cpuSecondsOfSelf() - cpuBefore;
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
    out << QStringLiteral("  floor (readdir /proc)  %1 ms per scan\n").arg(floor * 1000, 0, 'f', 3);
    out << QStringLiteral("  watchdog scan          %1 ms per scan  (ratio %2x the floor)\n")
               .arg(perScanMs, 0, 'f', 3)
               .arg(perScanMs / qMax(1e-6, floor * 1000), 0, 'f', 1);
    out << QStringLiteral("  CPU at 10 scans/s      %1 % of one core  (target < 2 %)\n")
               .arg(percentAt10Hz, 0, 'f', 2);
    return 0;
}
