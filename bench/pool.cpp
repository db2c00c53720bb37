// bench/pool: a pool of light workspaces spread over several agents on this machine against the
// same number on one agent (docs/contracts.md "Pool hosts", "Fleet file"), same run, rounds
// interleaved. Each side, timed as one cycle: shared/PoolClient places N workspaces (the pool's
// placement rounds: health survey, optimistic counts, each host's `rejected`), runs `true` in
// every one (sync exec, C requests in flight at once), then deletes them all (removeAll).
// Prints each phase per side and round, and pool/single for the whole cycle (target ≤ 1.3).
//
// Usage (as root: light workspaces need it): bench_pool [--count N] [--hosts H] [--rounds R]
//                                                        [--parallel C]
// Defaults: N 3000, H 3, R 2, C 64.
#include "shared/ApiClient.h"
#include "shared/ParallelCalls.h"
#include "shared/PoolClient.h"
#include "support/AgentProcess.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonDocument>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <unistd.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

struct Side {
    explicit Side(const char* n) : name(n) {}
    const char* name;
    std::vector<std::unique_ptr<AgentProcess>> agents;
    QList<PoolHostHandle> hosts;
    std::vector<double> createMs, execMs, deleteMs, cycleMs;
};

/// Starts @p hosts agents of pool "bench", each of capacity @p capacity, with uid ranges of
/// their own (@p slot tells the sides apart). False with a message when one fails.
bool startSide(Side* side, int hosts, int capacity, int slot) {
    for (int i = 0; i < hosts; ++i) {
        auto agent = std::make_unique<AgentProcess>();
        AgentOptions options;
        options.runAsRoot = true;
        options.extraArgs = {"--pool", "bench", "--pool-capacity", QString::number(capacity)};
        const qint64 base = 1886000000LL + (slot * 8 + i) * 100000;
        options.extraEnv = {{"RUNBOX_LIGHT_UID_FIRST", QString::number(base)},
                            {"RUNBOX_LIGHT_UID_COUNT", QString::number(capacity + 64)},
                            {"RUNBOX_STRONG_UID_FIRST", QString::number(base + 50000)},
                            {"RUNBOX_STRONG_UID_COUNT", "64"},
                            {"RUNBOX_MAX_LIGHT_WORKSPACES", QString::number(capacity)}};
        if (!agent->start(options)) {
            std::fprintf(stderr, "bench_pool: agent %d of %s: %s\n", i, side->name,
                         qPrintable(agent->errorString()));
            return false;
        }
        side->hosts.append({QStringLiteral("h%1").arg(i + 1), agent->client()});
        side->agents.push_back(std::move(agent));
    }
    return true;
}

/// One cycle on @p side: false when a phase failed (its message printed).
bool cycle(Side* side, int count, int parallel) {
    PoolClient pool(side->hosts);
    QElapsedTimer total, phase;
    total.start();
    phase.start();
    PoolCreateRequest request;
    request.pool = QStringLiteral("bench");
    request.count = count;
    const PoolCreateResult made = pool.create(request);
    if (!made.ok) {
        std::fprintf(stderr, "bench_pool: create on %s: %s\n", side->name,
                     qPrintable(made.message));
        return false;
    }
    side->createMs.push_back(double(phase.nsecsElapsed()) / 1e6);
    phase.restart();
    QHash<QString, ApiClient*> byHost;
    for (const PoolHostHandle& h : std::as_const(side->hosts))
        byHost.insert(h.name, h.client);
    const QByteArray body = R"({"argv":["/bin/true"]})";
    for (qsizetype from = 0; from < made.workspaces.size(); from += parallel) {
        QList<ParallelCall> calls;
        for (qsizetype i = from; i < std::min<qsizetype>(from + parallel, made.workspaces.size());
             ++i) {
            const PooledWorkspace& w = made.workspaces.at(i);
            calls.append({byHost.value(w.host),
                          "POST",
                          "/v1/workspaces/" + w.localId.toUtf8() + "/exec",
                          body,
                          {},
                          int(i)});
        }
        runParallel(&calls, 60000);
        for (const ParallelCall& c : std::as_const(calls))
            if (c.response.status != 200 || !c.response.body.contains("\"completed\"")) {
                std::fprintf(stderr, "bench_pool: exec on %s: %d %s\n", side->name,
                             c.response.status, c.response.body.left(300).constData());
                return false;
            }
    }
    side->execMs.push_back(double(phase.nsecsElapsed()) / 1e6);
    phase.restart();
    QStringList errors;
    const QMap<QString, int> removed = pool.removeAll(QStringLiteral("bench"), &errors);
    int sum = 0;
    for (int n : removed)
        sum += n;
    if (!errors.isEmpty() || sum != count) {
        std::fprintf(stderr, "bench_pool: delete on %s: %d of %d; %s\n", side->name, sum, count,
                     qPrintable(errors.join("; ")));
        return false;
    }
    side->deleteMs.push_back(double(phase.nsecsElapsed()) / 1e6);
    side->cycleMs.push_back(double(total.nsecsElapsed()) / 1e6);
    return true;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    int count = 3000, hosts = 3, rounds = 2, parallel = 64;
    const QStringList args = app.arguments();
    for (qsizetype i = 1; i + 1 < args.size(); i += 2) {
        const int value = args.at(i + 1).toInt();
        if (args.at(i) == QLatin1String("--count"))
            count = value;
        else if (args.at(i) == QLatin1String("--hosts"))
            hosts = value;
        else if (args.at(i) == QLatin1String("--rounds"))
            rounds = value;
        else if (args.at(i) == QLatin1String("--parallel"))
            parallel = value;
    }
    if (::geteuid() != 0 || count < 1 || hosts < 1 || rounds < 1 || parallel < 1) {
        std::fprintf(stderr, "usage (as root): bench_pool [--count N] [--hosts H] [--rounds R] "
                             "[--parallel C]\n");
        return 2;
    }
    Side pooled("pool"), single("single");
    const int perHost = (count + hosts - 1) / hosts;
    if (!startSide(&pooled, hosts, perHost, 0) || !startSide(&single, 1, count, 1))
        return 1;
    std::printf("bench_pool: %d light workspaces, each running true, then deleted: %d agents "
                "(capacity %d each) against 1 agent (capacity %d); %d in flight\n",
                count, hosts, perHost, count, parallel);
    for (int r = 0; r < rounds; ++r)
        for (Side* side : {&pooled, &single}) {
            if (!cycle(side, count, parallel))
                return 1;
            std::printf("  round %d %-6s create %8.0f ms  exec %8.0f ms  delete %8.0f ms  "
                        "cycle %8.0f ms\n",
                        r + 1, side->name, side->createMs.back(), side->execMs.back(),
                        side->deleteMs.back(), side->cycleMs.back());
        }
    const double ratio = median(pooled.cycleMs) / median(single.cycleMs);
    std::printf("pool / single (median cycle): %.3fx (target <= 1.3x): %s\n", ratio,
                ratio <= 1.3 ? "met" : "NOT met");
    std::printf("%s\n", QJsonDocument(QJsonObject{{"bench", "pool"},
                                                  {"count", count},
                                                  {"hosts", hosts},
                                                  {"poolCycleMs", median(pooled.cycleMs)},
                                                  {"singleCycleMs", median(single.cycleMs)},
                                                  {"ratio", ratio}})
                            .toJson(QJsonDocument::Compact)
                            .constData());
    return ratio <= 1.3 ? 0 : 3;
}
