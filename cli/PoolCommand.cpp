#include "cli/PoolCommand.h"

#include "cli/CliOptions.h"
#include "cli/ExecutionsCommand.h"
#include "cli/FleetTarget.h"
#include "cli/PoolCreateCommand.h"
#include "cli/SlurmPoolCommand.h"
#include "shared/ApiClient.h"
#include "shared/FleetFile.h"
#include "shared/PoolCache.h"
#include "shared/PoolClient.h"
#include "shared/PoolHostToken.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>

#include <csignal>
#include <memory>
#include <vector>

namespace runbox::cli {

namespace {

const char kUsage[] = "runbox [--fleet FILE] pool ls [NAME] [--json] | "
                      "create NAME --per-host N (--host HOST=https://ADDRESS:PORT[,FINGERPRINT]... "
                      "| --slurm PARTITION [--max-hosts M] [--exit-when-idle S] [--gres SPEC] "
                      "[--sbatch-script FILE]) [--json] | "
                      "add NAME COUNT [--light|--strong] [--idle-timeout S] [--json] | "
                      "rm NAME [--json]";
const OptionSpec kJson{QStringLiteral("--json")};

volatile std::sig_atomic_t g_interrupted = 0;

void onInterrupt(int) {
    g_interrupted = 1;
}

/// Ctrl-C or SIGTERM during `pool add` ends it after the round under way, deleting what it
/// made (all or nothing); a second one kills the CLI as usual (SA_RESETHAND).
void catchInterrupts() {
    struct sigaction sa {};
    sa.sa_handler = onInterrupt;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
}

/// The fleet's agents as pool hosts: a client for each one whose token could be read.
struct FleetClients {
    std::vector<std::unique_ptr<ApiClient>> clients;
    QList<PoolHostHandle> hosts;
    QList<PoolHostStatus> unusable; ///< agents whose token could not be read
};

/// The fleet file's agents and, for each Slurm pool of @p slurmPools, its running hosts
/// (SlurmPoolSide; the fleet file may then be missing unless --fleet named it). A Slurm pool
/// whose hosts cannot be discovered fails the call when @p slurmRequired, else is reported on
/// stderr and left out (`pool ls` without a name).
bool loadFleet(const char* command, const FleetChoice& fleet, FleetClients* out,
               const QStringList& slurmPools = {}, bool slurmRequired = true) {
    FleetFile file;
    QList<SlurmPoolSide> slurm;
    for (const QString& pool : slurmPools)
        if (SlurmPoolSide side(pool); side.isSlurm())
            slurm << side;
    QList<FleetAgent> agents;
    if (slurm.isEmpty() || fleet.explicitPath || QFileInfo::exists(fleet.path)) {
        if (const QString e = file.load(fleet.path); !e.isEmpty()) {
            QTextStream(stderr) << "runbox " << command << ": " << e << Qt::endl;
            return false;
        }
        agents = file.agents();
    }
    for (const SlurmPoolSide& side : slurm) {
        QList<FleetAgent> discovered;
        QStringList notReady;
        QString e = side.error();
        if (!e.isEmpty() || !side.hosts(&discovered, &notReady, &e)) {
            QTextStream(stderr) << "runbox " << command << ": " << e << Qt::endl;
            if (slurmRequired)
                return false;
            continue;
        }
        for (const FleetAgent& agent : discovered)
            if (!file.find(agent.name))
                agents << agent;
    }
    for (const FleetAgent& agent : agents) {
        QString error;
        const QByteArray token =
            agent.viaSsh() ? QByteArray() : PoolHostToken::forFleetAgent(agent, &error);
        if (agent.viaSsh())
            error = QStringLiteral("reached through ssh only (a console profile); not a pool host");
        if (token.isEmpty()) {
            PoolHostStatus s;
            s.name = agent.name;
            s.url = agent.url;
            s.error = error;
            out->unusable << s;
            continue;
        }
        out->clients.push_back(std::make_unique<ApiClient>(QUrl(agent.url), token));
        out->clients.back()->setPinnedSha256(agent.pin);
        out->hosts << PoolHostHandle{agent.name, out->clients.back().get()};
    }
    return true;
}

int list(const QStringList& args, const FleetChoice& fleet) {
    ParsedArgs parsed;
    if (!parseCommandArgs("pool ls", args, {kJson}, kUsage, &parsed))
        return kExitUsage;
    if (parsed.positional.size() > 1 || parsed.dashDash)
        return usageError("pool ls", QStringLiteral("takes at most one pool name"), kUsage);
    const QString name = parsed.positional.value(0);
    // Without a name: every pool, the Slurm ones defined in the config dir included.
    const QStringList slurmPools =
        name.isEmpty() ? SlurmPoolSide::definedPools() : QStringList{name};
    FleetClients fc;
    if (!loadFleet("pool ls", fleet, &fc, slurmPools, !name.isEmpty()))
        return kExitUsage;
    QJsonArray jobs;
    bool anySlurm = false;
    for (const QString& pool : slurmPools) {
        const SlurmPoolSide slurm(pool);
        anySlurm = anySlurm || slurm.isSlurm();
        QString jobsError;
        if (slurm.isSlurm() && slurm.error().isEmpty() && !slurm.jobs(&jobs, &jobsError))
            QTextStream(stderr) << "runbox pool ls: " << jobsError << Qt::endl;
    }
    // A named pool's survey refreshes its cache (docs/contracts.md "Pool cache").
    PoolCache cache(name, PoolCache::defaultPath(name));
    cache.load();
    PoolClient client(fc.hosts);
    if (!name.isEmpty())
        client.setCache(&cache);
    QList<PoolHostStatus> states = client.survey();
    states += fc.unusable;
    QJsonArray hosts;
    QList<QStringList> rows{{"POOL", "HOST", "URL", "CAPACITY", "WORKSPACES", "FREE", "LABELS"}};
    bool anyReachable = false;
    for (const PoolHostStatus& s : states) {
        anyReachable = anyReachable || s.reachable;
        if (!name.isEmpty() && s.pool != name && s.reachable)
            continue;
        hosts.append(s.toJson());
        rows.append(
            {s.reachable ? (s.pool.isEmpty() ? QStringLiteral("-") : s.pool) : QStringLiteral("?"),
             s.name, s.url, s.reachable ? QString::number(s.capacity) : QStringLiteral("-"),
             s.reachable ? QString::number(s.workspaces) : QStringLiteral("-"),
             !s.reachable ? QStringLiteral("unreachable: ") + s.error
             : s.free < 0 ? QStringLiteral("no limit")
                          : QString::number(s.free),
             s.labels.join(QLatin1Char(','))});
    }
    QJsonObject listing{{"hosts", hosts}};
    if (anySlurm)
        listing.insert(QStringLiteral("jobs"), jobs); // [{"pool","jobId","state","nodes"}]
    if (parsed.has(QStringLiteral("--json"))) {
        QTextStream(stdout) << QJsonDocument(listing).toJson(QJsonDocument::Indented);
    } else {
        QTextStream(stdout) << formatTable(rows);
        QList<QStringList> jobRows{{"POOL", "JOB", "STATE", "NODES"}};
        for (const QJsonValue& j : jobs)
            jobRows.append(
                {j[QLatin1String("pool")].toString(), j[QLatin1String("jobId")].toString(),
                 j[QLatin1String("state")].toString(), j[QLatin1String("nodes")].toString()});
        if (anySlurm)
            QTextStream(stdout) << "Slurm jobs:\n" << formatTable(jobRows);
    }
    return anyReachable || states.isEmpty() ? kExitOk : kExitConnection;
}

int add(const QStringList& args, const FleetChoice& fleet) {
    ParsedArgs parsed;
    if (!parseCommandArgs("pool add", args,
                          {kJson,
                           {QStringLiteral("--light")},
                           {QStringLiteral("--strong")},
                           {QStringLiteral("--idle-timeout"), true}},
                          kUsage, &parsed))
        return kExitUsage;
    if (parsed.positional.size() != 2 || parsed.dashDash)
        return usageError("pool add", QStringLiteral("give NAME and COUNT"), kUsage);
    bool ok = false;
    PoolCreateRequest request;
    request.pool = parsed.positional[0];
    request.count = parsed.positional[1].toInt(&ok);
    if (!ok || request.count < 1)
        return usageError("pool add", QStringLiteral("COUNT must be a whole number >= 1"), kUsage);
    if (parsed.has(QStringLiteral("--light")) && parsed.has(QStringLiteral("--strong")))
        return usageError("pool add", QStringLiteral("give --light or --strong, not both"), kUsage);
    request.isolation =
        parsed.has(QStringLiteral("--strong")) ? QStringLiteral("strong") : QStringLiteral("light");
    if (parsed.has(QStringLiteral("--idle-timeout"))) {
        const int s = parsed.value(QStringLiteral("--idle-timeout")).toInt(&ok);
        if (!ok || s < 0 || request.isolation != QLatin1String("light"))
            return usageError("pool add",
                              QStringLiteral("--idle-timeout takes seconds >= 0 (light only)"),
                              kUsage);
        request.lightOptions.insert(QStringLiteral("idleTimeoutS"), s);
    }
    if (const SlurmPoolSide slurm(request.pool); slurm.isSlurm()) {
        QStringList booted;
        QString e = slurm.error();
        if (!e.isEmpty() || !slurm.growFor(request.count, &booted, &e)) {
            QTextStream(stderr) << "runbox pool add: " << e << Qt::endl;
            return kExitApiError;
        }
        if (!booted.isEmpty())
            QTextStream(stderr) << "runbox pool add: booted Slurm job(s) " << booted.join(' ')
                                << Qt::endl;
    }
    FleetClients fc;
    if (!loadFleet("pool add", fleet, &fc, {request.pool}))
        return kExitUsage;
    catchInterrupts();
    request.cancelled = [] { return g_interrupted != 0; };
    PoolCache cache(request.pool, PoolCache::defaultPath(request.pool)); // placement only
    cache.load();
    PoolClient client(fc.hosts);
    client.setCache(&cache);
    const PoolCreateResult result = client.create(request);
    QTextStream out(stdout);
    if (parsed.has(QStringLiteral("--json")))
        out << QJsonDocument(result.toJson(request.pool)).toJson(QJsonDocument::Indented);
    else
        for (const PooledWorkspace& w : result.workspaces)
            out << w.id << ' ' << w.record.value(QLatin1String("token")).toString() << '\n';
    out.flush();
    if (result.ok)
        return kExitOk;
    QTextStream err(stderr);
    err << "runbox pool add: " << result.code << ": " << result.message << Qt::endl;
    if (!result.leftBehind.isEmpty())
        err << "runbox pool add: could not delete again: " << result.leftBehind.join(' ')
            << Qt::endl;
    if (result.code == QLatin1String("cancelled"))
        return 130; // 128 + SIGINT, as a shell reports an interrupted command
    return result.code == QLatin1String("no_pool_hosts") ? kExitConnection : kExitApiError;
}

int remove(const QStringList& args, const FleetChoice& fleet) {
    ParsedArgs parsed;
    if (!parseCommandArgs("pool rm", args, {kJson}, kUsage, &parsed))
        return kExitUsage;
    if (parsed.positional.size() != 1 || parsed.dashDash)
        return usageError("pool rm", QStringLiteral("give the pool's NAME"), kUsage);
    FleetClients fc;
    if (!loadFleet("pool rm", fleet, &fc, {parsed.positional[0]}))
        return kExitUsage;
    QStringList errors;
    PoolCache cache(parsed.positional[0], PoolCache::defaultPath(parsed.positional[0]));
    cache.load();
    PoolClient client(fc.hosts);
    client.setCache(&cache);
    const QMap<QString, int> deleted = client.removeAll(parsed.positional[0], &errors);
    // A Slurm pool's jobs are cancelled once their workspaces are deleted.
    QStringList cancelled;
    if (const SlurmPoolSide slurm(parsed.positional[0]); slurm.isSlurm()) {
        QString e;
        if (!slurm.cancelAll(&cancelled, &e))
            errors << e;
        else if (!cancelled.isEmpty() && !parsed.has(QStringLiteral("--json")))
            QTextStream(stdout) << "cancelled Slurm job(s) " << cancelled.join(' ') << '\n';
    }
    QJsonObject perHost;
    for (auto it = deleted.cbegin(); it != deleted.cend(); ++it) {
        perHost.insert(it.key(), it.value());
        if (!parsed.has(QStringLiteral("--json")))
            QTextStream(stdout) << it.key() << ": " << it.value() << " deleted\n";
    }
    if (parsed.has(QStringLiteral("--json")))
        QTextStream(stdout)
            << QJsonDocument(QJsonObject{{"deleted", perHost},
                                         {"cancelledJobs", QJsonArray::fromStringList(cancelled)},
                                         {"errors", QJsonArray::fromStringList(errors)}})
                   .toJson(QJsonDocument::Indented);
    for (const QString& e : errors)
        QTextStream(stderr) << "runbox pool rm: " << e << Qt::endl;
    return errors.isEmpty() ? kExitOk : kExitApiError;
}

} // namespace

int runPool(const QStringList& args, const FleetChoice& fleet) {
    const QString sub = args.value(0);
    if (sub == QLatin1String("ls") || sub == QLatin1String("list"))
        return list(args.mid(1), fleet);
    if (sub == QLatin1String("add"))
        return add(args.mid(1), fleet);
    if (sub == QLatin1String("create"))
        return runPoolCreate(args.mid(1), fleet);
    if (sub == QLatin1String("rm") || sub == QLatin1String("delete"))
        return remove(args.mid(1), fleet);
    return usageError("pool",
                      sub.isEmpty() ? QStringLiteral("give a subcommand")
                                    : QStringLiteral("unknown subcommand \"%1\"").arg(sub),
                      kUsage);
}

} // namespace runbox::cli
