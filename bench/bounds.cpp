// bench/bounds: how tight the resource bounds of docs/bounds.md are, and what they cost, against
// the real agent (unprivileged, as the integration tests run it), each measure N times:
//   1. a fast allocator (`python3 -c "b = b'x' * (4 << 30)"`) under maxMemoryBytes 512 MiB: the
//      recorded usage.peakMemoryBytes minus the limit (target: median and max < 256 MiB), every
//      run memory_exceeded; beside it the allocator's own VmHWM as a sampler thread of this
//      process last saw it (1 ms polls), since the watchdog's peak is only what its scans caught;
//   2. `dd` of 1000 MiB, and a writer of 1000 files of 1 MiB, under a per-request
//      maxWorkspaceBytes of 1 MiB: bytes left in the workspace, read from disk (target < 16 MiB),
//      every run quota_exceeded;
//   3. a sync `true` while a managed execution spins on every core, against idle, interleaved
//      (target: loaded p50 <= 3 x idle p50), with the host's busy CPU share of each phase;
//   4. a sync `true` with maxMemoryBytes 4 GiB against an agent whose setting is 0 (a request can
//      only tighten, so "off" is an agent of its own), interleaved A/B (target: on p50 <= 1.05 x
//      off p50).
// Baselines are measured in the same run; positive controls first (a 256 MiB allocator and a
// 512 KiB writer complete under the same limits, and their figures are seen). Prints a table and
// one JSON line; exits 1 when a target is missed, and stops (qFatal) when a figure cannot be
// trusted.
//
// Usage: bench_bounds [--count N] (default 10) [--quick] (N = 3) [--agent PATH]
#include "bench/BoundsProbes.h"
#include "support/AgentProcess.h"
#include "support/ManagedApi.h"
#include "support/RawHttp.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QThread>

#include <cstdio>
#include <thread>
#include <vector>

using namespace runbox;
using namespace runbox::testsupport;
using namespace runbox::boundsbench;

namespace {

constexpr qint64 kMiB = qint64(1) << 20;
constexpr qint64 kMemoryLimit = 512 * kMiB;
constexpr qint64 kOvershootTarget = 256 * kMiB;
constexpr qint64 kOnLimit = 4096 * kMiB;
constexpr qint64 kDiskQuota = 1 * kMiB;
constexpr qint64 kLeftTarget = 16 * kMiB;
constexpr double kLoadedTarget = 3.0;
constexpr double kLimitsTarget = 1.05;
constexpr int kExecsPerPhase = 5; ///< sync `true` runs per phase of a round (3; twice in 4)
const char kAllocator[] = "b = b'x' * (4 << 30)";
/// Sleeps once allocated, so that the watchdog's scans (100 ms apart this far from the limit)
/// see the whole of it.
const char kControlAllocator[] = "b = b'x' * (256 << 20); import time; time.sleep(0.5)";
const char kDd[] = "dd if=/dev/zero of=big bs=1M count=1000";
const char kManyFiles[] =
    "for i in $(seq 1000); do dd if=/dev/zero of=f$i bs=1M count=1 status=none; done";
const char kSpinner[] = "for i in $(seq $(nproc)); do (while :; do :; done) & done; wait";

/// One agent with a kept-alive loopback connection for signed sync execs of `true` (the minimal
/// blocking client of bench_exec_latency, so the figure is the agent's and not a client
/// library's).
class TrueRunner final {
public:
    TrueRunner(AgentProcess& agent, const QString& workspaceId)
        : m_token(agent.token()), m_path("/v1/workspaces/" + workspaceId.toUtf8() + "/exec") {
        if (!m_conn.connectTo(agent.port()))
            qFatal("cannot connect to the agent");
    }
    /// Milliseconds of one exec; stops the bench unless it completed.
    double runMs() {
        const QByteArray body = R"({"argv":["/usr/bin/true"]})";
        QElapsedTimer t;
        t.start();
        const HeaderList headers =
            signedHeaders(m_token, "POST", m_path, body, QDateTime::currentMSecsSinceEpoch());
        if (!m_conn.send(buildRequest("POST", m_path, headers, body)))
            qFatal("send failed");
        const RawHttpResponse r = m_conn.readResponse(120000);
        const double ms = double(t.nsecsElapsed()) / 1e6;
        if (r.status != 200 || !r.body.contains("\"status\":\"completed\""))
            qFatal("exec of true did not complete: %d %s", r.status, r.body.constData());
        return ms;
    }

private:
    QByteArray m_token;
    QByteArray m_path;
    RawHttpConnection m_conn;
};

QJsonObject usageOf(const ExecOutcome& r) {
    return r.exitEvent.value(QLatin1String("usage")).toObject();
}

ExecOutcome runSync(AgentProcess& agent, const QString& ws, const QJsonObject& body) {
    const ExecOutcome r = agent.exec(ws, body, 180000);
    if (r.httpStatus != 200 || !r.hasExit())
        qFatal("sync exec %s: %s", QJsonDocument(body).toJson(QJsonDocument::Compact).constData(),
               qPrintable(r.describe()));
    return r;
}

void startAgent(AgentProcess& agent, const QString& agentPath, qint64 maxMemoryBytes) {
    AgentOptions options;
    options.agentPath = agentPath;
    options.extraEnv.insert(QStringLiteral("RUNBOX_MAX_MEMORY_BYTES"),
                            QString::number(maxMemoryBytes));
    if (!agent.start(options))
        qFatal("agent: %s", qPrintable(agent.errorString()));
    const qint64 setting = agent.client()
                               ->call("GET", "/v1/settings/quotas")
                               .json()
                               .value("quotas")
                               .toObject()
                               .value("maxMemoryBytes")
                               .toInteger(-1);
    if (setting != maxMemoryBytes)
        qFatal("agent's maxMemoryBytes is %lld, not the %lld seeded", setting, maxMemoryBytes);
}

/// 4: sync `true` on the agent whose maxMemoryBytes is 4 GiB and on the one whose is 0,
/// alternating, the order swapped every round (on, off, off, on, …).
struct LimitsFigures {
    std::vector<double> onMs, offMs;
};

LimitsFigures measureLimits(TrueRunner& onRunner, TrueRunner& offRunner, int count) {
    for (int i = 0; i < kExecsPerPhase; ++i) { // warm-up
        onRunner.runMs();
        offRunner.runMs();
    }
    LimitsFigures f;
    for (int round = 0; round < count; ++round)
        for (int i = 0; i < 2 * kExecsPerPhase; ++i) {
            const bool onFirst = (round + i) % 2 == 0;
            (onFirst ? f.onMs : f.offMs).push_back((onFirst ? onRunner : offRunner).runMs());
            (onFirst ? f.offMs : f.onMs).push_back((onFirst ? offRunner : onRunner).runMs());
        }
    return f;
}

/// 1: the 4 GiB allocator under 512 MiB, after its positive control.
struct AllocatorFigures {
    std::vector<double> overshootBytes, hwmOvershootBytes, stopMs;
    int memoryExceeded = 0;
    int peakRecorded = 0;
};

AllocatorFigures measureAllocator(AgentProcess& agent, int count) {
    const QString ws = agent.createWorkspace();
    auto body = [](const char* code) {
        return QJsonObject{{"argv", QJsonArray{"/usr/bin/python3", "-c", code}},
                           {"maxMemoryBytes", double(kMemoryLimit)}};
    };
    {
        HwmSampler sampler(kControlAllocator);
        const ExecOutcome r = runSync(agent, ws, body(kControlAllocator));
        const qint64 hwm = sampler.stop();
        const qint64 peak = usageOf(r).value("peakMemoryBytes").toInteger(-1);
        if (r.status() != QLatin1String("completed") || peak < 256 * kMiB || hwm < 256 * kMiB)
            qFatal("control (256 MiB under 512 MiB): %s, peak %lld, sampled VmHWM %lld",
                   qPrintable(r.status()), peak, hwm);
    }
    AllocatorFigures f;
    for (int i = 0; i < count; ++i) {
        HwmSampler sampler(kAllocator);
        const ExecOutcome r = runSync(agent, ws, body(kAllocator));
        const qint64 hwm = sampler.stop();
        const qint64 peak = usageOf(r).value("peakMemoryBytes").toInteger(-1);
        f.memoryExceeded += r.status() == QLatin1String("memory_exceeded");
        if (peak > 0) {
            ++f.peakRecorded;
            f.overshootBytes.push_back(double(peak - kMemoryLimit));
        }
        if (hwm > 0)
            f.hwmOvershootBytes.push_back(double(hwm - kMemoryLimit));
        f.stopMs.push_back(r.exitEvent.value("durationMs").toDouble());
    }
    return f;
}

/// 2: one writer under a per-request 1 MiB.
struct Writer {
    const char* name;
    const char* code;
    std::vector<double> leftBytes = {};
    int quotaExceeded = 0;
};

/// 2: a positive control (512 KiB fits and is seen on disk), then the writers interleaved, the
/// workspace emptied from the host after each run.
void measureWriters(AgentProcess& agent, std::vector<Writer>& writers, int count) {
    const QString ws = agent.createWorkspace();
    const QString dir = agent.workspaceDir(ws);
    const QStringList keep =
        QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
    const DiskUse before = diskUse(dir);
    auto body = [](const char* code) {
        return QJsonObject{
            {"kind", "shell"}, {"code", code}, {"maxWorkspaceBytes", double(kDiskQuota)}};
    };
    const ExecOutcome control =
        runSync(agent, ws, body("dd if=/dev/zero of=small bs=64k count=8 status=none"));
    const qint64 controlBytes = diskUse(dir).apparentBytes - before.apparentBytes;
    if (control.status() != QLatin1String("completed") || controlBytes != 512 * 1024)
        qFatal("control (512 KiB under 1 MiB): %s, %lld bytes on disk",
               qPrintable(control.status()), controlBytes);
    removeAllBut(dir, keep);
    for (int i = 0; i < count; ++i)
        for (Writer& w : writers) {
            const ExecOutcome r = runSync(agent, ws, body(w.code));
            w.leftBytes.push_back(double(diskUse(dir).larger() - before.larger()));
            w.quotaExceeded += r.status() == QLatin1String("quota_exceeded");
            removeAllBut(dir, keep);
        }
}

/// 3: sync `true` idle, then while a managed execution spins on every core, round by round.
struct LoadFigures {
    std::vector<double> idleMs, loadedMs, idleBusy, loadedBusy;
    std::vector<double> spinnerCores; ///< the spinners' CPU read from /proc over the phase
    std::vector<double> recordCores;  ///< the same from their record's usage over its run
};

LoadFigures measureLoaded(AgentProcess& agent, TrueRunner& runner, int count) {
    const QString loadWs = agent.createWorkspace();
    ApiClient& client = *agent.client();
    LoadFigures f;
    for (int round = 0; round < count; ++round) {
        CpuTimes t0 = hostCpu();
        for (int i = 0; i < kExecsPerPhase; ++i)
            f.idleMs.push_back(runner.runMs());
        f.idleBusy.push_back(busyShare(t0, hostCpu()));

        const ApiResponse submitted = submitExecution(
            client, loadWs, {{"argv", QJsonArray{"/usr/bin/bash", "-c", kSpinner}}});
        const QString id = submitted.json().value("executionId").toString();
        if (submitted.status != 202)
            qFatal("spinner: %d %s", submitted.status, submitted.body.constData());
        const QJsonObject running = waitForRecord(client, id, [](const QJsonObject& r) {
            return r.value("state").toString() != QLatin1String("queued");
        });
        if (running.value("state").toString() != QLatin1String("running"))
            qFatal("spinner is %s", qPrintable(running.value("state").toString()));
        QThread::msleep(500); // every core's spinner started
        t0 = hostCpu();
        const double spunBefore = cpuSecondsOfMarked(kSpinner);
        QElapsedTimer wall;
        wall.start();
        for (int i = 0; i < kExecsPerPhase; ++i)
            f.loadedMs.push_back(runner.runMs());
        f.loadedBusy.push_back(busyShare(t0, hostCpu()));
        f.spinnerCores.push_back((cpuSecondsOfMarked(kSpinner) - spunBefore) * 1000.0 /
                                 double(std::max<qint64>(1, wall.elapsed())));
        client.call("POST", "/v1/executions/" + id.toUtf8() + "/cancel");
        const QJsonObject end = waitUntilFinal(client, id);
        if (end.value("state").toString() != QLatin1String("cancelled"))
            qFatal("spinner ended %s, not cancelled", qPrintable(end.value("state").toString()));
        const QJsonObject usage = end.value("usage").toObject();
        if (!usage.value("cpuUserMs").isNull() && end.value("durationMs").toDouble() > 0)
            f.recordCores.push_back(
                (usage.value("cpuUserMs").toDouble() + usage.value("cpuSystemMs").toDouble()) /
                end.value("durationMs").toDouble());
    }
    return f;
}

QString yesNo(bool met) {
    return met ? QStringLiteral("yes") : QStringLiteral("NO");
}

double mib(double bytes) {
    return bytes / double(kMiB);
}

QString ofCount(int n, int count) {
    return QStringLiteral("%1/%2").arg(n).arg(count);
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    int count = 10;
    QString agentPath;
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--quick"))
            count = 3;
        else if (args[i] == QLatin1String("--count") && i + 1 < args.size())
            count = qBound(1, args[++i].toInt(), 1000);
        else if (args[i] == QLatin1String("--agent") && i + 1 < args.size())
            agentPath = args[++i];
    }

    AgentProcess on, off;
    startAgent(on, agentPath, kOnLimit);
    startAgent(off, agentPath, 0);
    const QJsonObject memoryMode =
        on.client()->call("GET", "/v1/health").json().value("memory").toObject();
    if (memoryMode.value("mode").toString() == QLatin1String("none"))
        qFatal("no memory bounds on this host: %s",
               qPrintable(memoryMode.value("reason").toString()));
    TrueRunner onRunner(on, on.createWorkspace()), offRunner(off, off.createWorkspace());

    // 4 first, while both agents are equally fresh (same records, same workspaces).
    const LimitsFigures limits = measureLimits(onRunner, offRunner, count);
    const AllocatorFigures alloc = measureAllocator(on, count);
    std::vector<Writer> writers = {{"dd 1000 MiB", kDd}, {"1000 files of 1 MiB", kManyFiles}};
    measureWriters(on, writers, count);
    const LoadFigures load = measureLoaded(on, onRunner, count);
    on.stop();
    off.stop();

    // Figures and targets.
    const bool memMet = alloc.memoryExceeded == count && alloc.peakRecorded == count &&
                        maxOf(alloc.overshootBytes) < double(kOvershootTarget);
    bool diskMet = true;
    for (const Writer& w : writers)
        diskMet = diskMet && w.quotaExceeded == count && maxOf(w.leftBytes) < double(kLeftTarget);
    const double idleP50 = median(load.idleMs), loadedP50 = median(load.loadedMs);
    const double loadedRatio = loadedP50 / idleP50;
    const bool loadMet = loadedRatio <= kLoadedTarget;
    const double onP50 = median(limits.onMs), offP50 = median(limits.offMs);
    const double limitsRatio = onP50 / offP50;
    const bool limitsMet = limitsRatio <= kLimitsTarget;

    std::printf("bench_bounds: %d runs each; unprivileged agent; memory bounds: %s\n", count,
                qPrintable(memoryMode.value("mode").toString()));
    std::printf("%-44s %12s %12s %14s %5s\n", "measure", "median", "max", "target", "met");
    std::printf("%-44s %8.1f MiB %8.1f MiB %14s %5s\n", "1 allocator: peakMemoryBytes - 512 MiB",
                mib(median(alloc.overshootBytes)), mib(maxOf(alloc.overshootBytes)), "< 256 MiB",
                qPrintable(yesNo(memMet)));
    std::printf("%-44s %8.1f MiB %8.1f MiB %14s\n", "  its VmHWM seen by the bench - 512 MiB",
                mib(median(alloc.hwmOvershootBytes)), mib(maxOf(alloc.hwmOvershootBytes)),
                "(reference)");
    std::printf("%-44s %9.0f ms %9.0f ms\n", "  run time until stopped", median(alloc.stopMs),
                maxOf(alloc.stopMs));
    std::printf("%-44s %12s   (peak recorded %s, VmHWM seen %s)\n", "  ended memory_exceeded",
                qPrintable(ofCount(alloc.memoryExceeded, count)),
                qPrintable(ofCount(alloc.peakRecorded, count)),
                qPrintable(ofCount(int(alloc.hwmOvershootBytes.size()), count)));
    for (const Writer& w : writers) {
        std::printf("%-44s %8.2f MiB %8.2f MiB %14s %5s\n",
                    qPrintable(QStringLiteral("2 %1: bytes left").arg(w.name)),
                    mib(median(w.leftBytes)), mib(maxOf(w.leftBytes)), "< 16 MiB",
                    qPrintable(yesNo(w.quotaExceeded == count &&
                                     maxOf(w.leftBytes) < double(kLeftTarget))));
        std::printf("%-44s %12s\n", "  ended quota_exceeded",
                    qPrintable(ofCount(w.quotaExceeded, count)));
    }
    std::printf("%-44s %9.2f ms %6.2f ms p90   (host busy %.0f %%)\n", "3 sync true, idle", idleP50,
                percentile(load.idleMs, 0.9), 100 * median(load.idleBusy));
    std::printf("%-44s %9.2f ms %6.2f ms p90   (host busy %.0f %%, spinners on %.2f cores)\n",
                "  sync true, every core spinning", loadedP50, percentile(load.loadedMs, 0.9),
                100 * median(load.loadedBusy), median(load.spinnerCores));
    std::printf("%-44s %11.2fx %12s %14s %5s\n", "  loaded / idle (p50)", loadedRatio, "", "<= 3x",
                qPrintable(yesNo(loadMet)));
    std::printf("%-44s %9.2f cores (record usage CPU / durationMs; measured in %d of %d runs)\n",
                "  spinners by their own record (reference)", median(load.recordCores),
                int(load.recordCores.size()), count);
    if (median(load.spinnerCores) < 0.5 * double(std::thread::hardware_concurrency()))
        std::printf("  warning: the spinners had %.2f of %u cores (other load on the host)\n",
                    median(load.spinnerCores), std::thread::hardware_concurrency());
    if (median(load.idleBusy) > 0.75)
        std::printf("  warning: the host was busy in the idle phases too (other load): the idle "
                    "baseline is not idle, and the ratio understates what a spinner costs\n");
    std::printf("%-44s %9.2f ms %6.2f ms p90\n", "4 sync true, maxMemoryBytes 0 (off)", offP50,
                percentile(limits.offMs, 0.9));
    std::printf("%-44s %9.2f ms %6.2f ms p90\n", "  sync true, maxMemoryBytes 4 GiB (on)", onP50,
                percentile(limits.onMs, 0.9));
    std::printf("%-44s %11.3fx %12s %14s %5s\n", "  on / off (p50)", limitsRatio, "", "<= 1.05x",
                qPrintable(yesNo(limitsMet)));
    const bool met = memMet && diskMet && loadMet && limitsMet;
    std::printf("targets: %s\n", met ? "all met" : "NOT all met");

    QJsonObject disk;
    for (const Writer& w : writers)
        disk.insert(QString::fromLatin1(w.name),
                    QJsonObject{{"leftMedianBytes", median(w.leftBytes)},
                                {"leftMaxBytes", maxOf(w.leftBytes)},
                                {"quotaExceeded", w.quotaExceeded}});
    const QJsonObject json{
        {"bench", "bounds"},
        {"count", count},
        {"memoryMode", memoryMode.value("mode")},
        {"allocator", QJsonObject{{"overshootMedianBytes", median(alloc.overshootBytes)},
                                  {"overshootMaxBytes", maxOf(alloc.overshootBytes)},
                                  {"hwmOvershootMedianBytes", median(alloc.hwmOvershootBytes)},
                                  {"hwmOvershootMaxBytes", maxOf(alloc.hwmOvershootBytes)},
                                  {"stopMedianMs", median(alloc.stopMs)},
                                  {"memoryExceeded", alloc.memoryExceeded},
                                  {"peakRecorded", alloc.peakRecorded}}},
        {"disk", disk},
        {"loaded", QJsonObject{{"idleP50Ms", idleP50},
                               {"loadedP50Ms", loadedP50},
                               {"ratio", loadedRatio},
                               {"idleHostBusy", median(load.idleBusy)},
                               {"loadedHostBusy", median(load.loadedBusy)},
                               {"spinnerCores", median(load.spinnerCores)},
                               {"spinnerRecordCores", median(load.recordCores)}}},
        {"limits", QJsonObject{{"offP50Ms", offP50}, {"onP50Ms", onP50}, {"ratio", limitsRatio}}},
        {"met", QJsonObject{{"allocator", memMet},
                            {"disk", diskMet},
                            {"loaded", loadMet},
                            {"limits", limitsMet}}}};
    std::printf("%s\n", QJsonDocument(json).toJson(QJsonDocument::Compact).constData());
    return met ? 0 : 1;
}
