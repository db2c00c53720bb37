// bench/light_host: the light tier's own costs (LightWorkspaceHost, no HTTP), measured in one run
// on this machine (docs/light-workspaces.md "Measured"). bench/light_pool measures the same over
// the agent's HTTP API. Prints p50/p90 of:
//   raw     fork + Landlock ruleset (same rules as a workspace) + setgroups/setgid/setuid +
//           NO_NEW_PRIVS + landlock_restrict_self + execve `true`, waited for;
//   create  LightWorkspaceHost::create (one by one), then one batch of N;
//   exec    one `true` in each fresh workspace (its first exec: with --no-prestart it also starts
//           the supervisor; by default the supervisor was started in the background), and
//           warm execs in one workspace, each until the exit status and pipe EOF are in;
//   delete  LightWorkspaceHost::remove;
// and the ratios exec/raw (target: first-exec p50 ≤ 2 × raw p50). HTTP, auth and 32 concurrent
// clients belong to the agent-level benchmark; this one isolates what the light code costs.
//
// Usage (as root): bench_light_pool [--count N] [--warm N] [--threads T] [--root DIR]
//                                   [--no-pid-namespace] [--no-prestart]
#include "LightRawLaunch.h"

#include "agent/light/LightWorkspaceHost.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fcntl.h>
#include <grp.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace runbox::light;

namespace {

struct Stats {
    double p50 = 0, p90 = 0, total = 0;
};

Stats summarize(std::vector<double> samples) {
    Stats stats;
    if (samples.empty())
        return stats;
    for (double sample : samples)
        stats.total += sample;
    std::sort(samples.begin(), samples.end());
    stats.p50 = samples[samples.size() / 2];
    stats.p90 = samples[samples.size() * 9 / 10];
    return stats;
}

void print(const char* name, const Stats& stats, std::size_t n) {
    std::printf("%-34s n=%-5zu p50=%8.3f ms  p90=%8.3f ms  total=%9.1f ms\n", name, n, stats.p50,
                stats.p90, stats.total);
}

double elapsedMs(const QElapsedTimer& timer) {
    return timer.nsecsElapsed() / 1e6;
}

/// One exec of `true` through the host, until both the exit status and stdout EOF are in.
double hostExecMs(LightWorkspaceHost& host, const QString& id) {
    QElapsedTimer timer;
    timer.start();
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0)
        return -1;
    LightExecRequest request;
    request.argv = {QStringLiteral("true")};
    request.stdoutFd = out[1];
    runbox::Error error;
    const auto execution = host.exec(id, request, &error);
    ::close(out[1]);
    char byte;
    while (::read(out[0], &byte, 1) > 0) {
    }
    ::close(out[0]);
    if (!execution)
        std::fprintf(stderr, "exec failed: %s\n", qPrintable(error.message));
    else if (!execution->waitForFinished(30000) || execution->status().exitCode != 0)
        std::fprintf(stderr, "exec ended as %s: %s\n", qPrintable(execution->status().stateName()),
                     qPrintable(execution->status().message));
    return elapsedMs(timer);
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    int count = 1000, warm = 200, threads = 1;
    bool pidNamespace = true;
    bool prestart = true;
    QString root = QStringLiteral("/tmp/runbox-bench-light");
    const QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--no-pid-namespace")) {
            pidNamespace = false;
            continue;
        }
        if (args[i] == QLatin1String("--no-prestart")) {
            prestart = false;
            continue;
        }
        if (i + 1 >= args.size())
            break;
        if (args[i] == QLatin1String("--count"))
            count = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--warm"))
            warm = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--threads"))
            threads = qMax(1, args[i + 1].toInt());
        else if (args[i] == QLatin1String("--root"))
            root = args[i + 1];
        ++i;
    }
    LightHostConfig config;
    config.workspaceRoot = root;
    config.supervisorPath = QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-light-supervisor");
    config.capacity = 2 * count + 16;
    config.pidNamespace = pidNamespace;
    config.prestartSupervisors = prestart;
    LightWorkspaceHost host(config);
    if (!host.start()) {
        std::fprintf(stderr, "light workspaces unavailable: %s\n",
                     qPrintable(host.availability().reason));
        return 1;
    }

    // Raw baseline, in a home of its own (owned by a uid outside the pool).
    const std::vector<double> raw =
        lightbench::rawLaunches(root + QStringLiteral("-raw"), 19999, qMin(count, 300));

    std::vector<double> create, exec, remove, warmExec;
    QStringList ids;
    QElapsedTimer phase;
    phase.start();
    for (int i = 0; i < count; ++i) {
        QElapsedTimer timer;
        timer.start();
        LightCreateResult result;
        if (host.create(LightWorkspaceOptions{}, 1, &result) || result.workspaces.isEmpty()) {
            std::fprintf(stderr, "create failed at %d\n", i);
            return 1;
        }
        create.push_back(elapsedMs(timer));
        ids << result.workspaces.first().id;
    }
    const double createWall = elapsedMs(phase);

    phase.restart();
    std::vector<std::vector<double>> perThread(threads);
    std::atomic<int> next{0};
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            for (int i = next++; i < ids.size(); i = next++)
                perThread[t].push_back(hostExecMs(host, ids[i]));
        });
    }
    for (auto& worker : workers)
        worker.join();
    for (const auto& samples : perThread)
        exec.insert(exec.end(), samples.begin(), samples.end());
    const double execWall = elapsedMs(phase);

    for (int i = 0; i < warm; ++i)
        warmExec.push_back(hostExecMs(host, ids.first()));

    phase.restart();
    for (const QString& id : ids) {
        QElapsedTimer timer;
        timer.start();
        if (auto error = host.remove(id))
            std::fprintf(stderr, "remove failed: %s\n", qPrintable(error->message));
        remove.push_back(elapsedMs(timer));
    }
    const double removeWall = elapsedMs(phase);

    phase.restart();
    LightCreateResult batch;
    host.create(LightWorkspaceOptions{}, count, &batch);
    const double batchMs = elapsedMs(phase);
    host.removeAll();
    host.flushReclaims();

    const Stats rawStats = summarize(raw);
    const Stats execStats = summarize(exec);
    const Stats warmStats = summarize(warmExec);
    std::printf("light_pool: %d workspaces, %d exec thread(s), %d warm execs\n", count, threads,
                warm);
    print("raw fork+landlock+setuid+exec", rawStats, raw.size());
    print("create (one by one)", summarize(create), create.size());
    std::printf("%-34s n=%-5d wall=%8.1f ms (%d created)\n", "create (one batch)", count, batchMs,
                static_cast<int>(batch.workspaces.size()));
    print("exec `true`, first in workspace", execStats, exec.size());
    print("exec `true`, warm workspace", warmStats, warmExec.size());
    print("delete", summarize(remove), remove.size());
    std::printf("phase wall: create %.1f ms, exec %.1f ms, delete %.1f ms, cycle %.1f ms\n",
                createWall, execWall, removeWall, createWall + execWall + removeWall);
    std::printf("ratio exec/raw p50: first %.2f (target <= 2), warm %.2f\n",
                execStats.p50 / rawStats.p50, warmStats.p50 / rawStats.p50);
    return 0;
}
