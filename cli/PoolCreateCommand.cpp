#include "cli/PoolCreateCommand.h"

#include "cli/CliOptions.h"
#include "cli/FleetTarget.h"
#include "cli/SlurmPoolCommand.h"
#include "shared/FleetFile.h"
#include "shared/PoolSecret.h"
#include "shared/TlsPin.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>
#include <QUrl>

namespace runbox::cli {

namespace {

const char kUsage[] = "runbox [--fleet FILE] pool create NAME --per-host N "
                      "(--host HOST=https://ADDRESS:PORT[,FINGERPRINT]... | --slurm PARTITION "
                      "[--max-hosts M] [--exit-when-idle S] [--gres SPEC] [--sbatch-script FILE]) "
                      "[--json]";

/// One --host: its fleet name, https URL and certificate pin as written ("" = the system store
/// verifies it).
struct HostSpec {
    QString name;
    QString url;
    QString fingerprint;
};

int refuse(const QString& message) {
    QTextStream(stderr) << "runbox pool create: " << message << Qt::endl;
    return kExitUsage;
}

/// The fleet file's JSON with @p hosts added as entries of @p pool, or an error: the file does
/// not load (FleetFile's rules), or a host is listed otherwise (another URL, a token file,
/// another pool). @p added gets the names that were not there yet.
QString addHosts(const QString& path, const QList<HostSpec>& hosts, const QString& pool,
                 QByteArray* json, QStringList* added) {
    QJsonObject root{{"agents", QJsonArray()}};
    FleetFile fleet;
    if (QFileInfo::exists(path)) {
        if (const QString e = fleet.load(path); !e.isEmpty())
            return e;
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return QStringLiteral("cannot read %1").arg(path);
        root = QJsonDocument::fromJson(file.readAll()).object();
    }
    QJsonArray agents = root.value(QLatin1String("agents")).toArray();
    for (const HostSpec& host : hosts) {
        const QString& name = host.name;
        if (const FleetAgent* listed = fleet.find(name)) {
            if (listed->pool != pool || QUrl(listed->url) != QUrl(host.url))
                return QStringLiteral("host %1 is already in %2 as %3 (%4); remove it there or "
                                      "name the host otherwise")
                    .arg(name, path, listed->url,
                         listed->pool.isEmpty() ? QStringLiteral("not of a pool")
                                                : QStringLiteral("pool ") + listed->pool);
            continue;
        }
        QJsonObject entry{{"name", name}, {"url", host.url}, {"pool", pool}};
        if (!host.fingerprint.isEmpty())
            entry.insert(QStringLiteral("fingerprint"), host.fingerprint);
        agents.append(entry);
        *added << name;
    }
    root.insert(QStringLiteral("agents"), agents);
    *json = QJsonDocument(root).toJson(QJsonDocument::Indented);
    FleetFile check; // what is written must load
    return check.parse(*json, path);
}

} // namespace

int runPoolCreate(const QStringList& args, const FleetChoice& fleet) {
    ParsedArgs parsed;
    if (!parseCommandArgs("pool create", args,
                          {{QStringLiteral("--json")},
                           {QStringLiteral("--per-host"), true},
                           {QStringLiteral("--host"), true},
                           {QStringLiteral("--slurm"), true},
                           {QStringLiteral("--max-hosts"), true},
                           {QStringLiteral("--exit-when-idle"), true},
                           {QStringLiteral("--gres"), true},
                           {QStringLiteral("--sbatch-script"), true}},
                          kUsage, &parsed))
        return kExitUsage;
    if (parsed.positional.size() != 1 || parsed.dashDash)
        return usageError("pool create", QStringLiteral("give the pool's NAME"), kUsage);
    const QString pool = parsed.positional[0];
    if (!FleetFile::validName(pool))
        return usageError("pool create",
                          QStringLiteral("pool \"%1\" must be 1-64 of A-Z a-z 0-9 _ -").arg(pool),
                          kUsage);
    bool ok = false;
    const int perHost = parsed.value(QStringLiteral("--per-host")).toInt(&ok);
    if (!ok || perHost < 1 || perHost > 1000000) // the agent's --pool-capacity range
        return usageError("pool create", QStringLiteral("--per-host takes 1 to 1000000"), kUsage);
    if (parsed.has(QStringLiteral("--slurm"))) {
        if (parsed.has(QStringLiteral("--host")))
            return usageError("pool create", QStringLiteral("give --host or --slurm, not both"),
                              kUsage);
        return runSlurmPoolCreate(parsed, pool, perHost);
    }
    for (const char* slurmOnly : {"--max-hosts", "--exit-when-idle", "--gres", "--sbatch-script"})
        if (parsed.has(QLatin1String(slurmOnly)))
            return usageError("pool create",
                              QStringLiteral("%1 goes with --slurm").arg(QLatin1String(slurmOnly)),
                              kUsage);
    QList<HostSpec> hosts;
    for (const QString& spec : parsed.values(QStringLiteral("--host"))) {
        const qsizetype eq = spec.indexOf(QLatin1Char('='));
        const qsizetype comma = spec.indexOf(QLatin1Char(','), eq < 0 ? 0 : eq);
        HostSpec host{spec.left(eq),
                      eq < 0 ? QString() : spec.mid(eq + 1, comma < 0 ? -1 : comma - eq - 1),
                      comma < 0 ? QString() : spec.mid(comma + 1)};
        const QUrl parsedUrl(host.url);
        if (!FleetFile::validName(host.name) || !parsedUrl.isValid() ||
            parsedUrl.host().isEmpty() || parsedUrl.scheme() != QLatin1String("https") ||
            (comma >= 0 && !tls::parseFingerprint(host.fingerprint)))
            return usageError(
                "pool create",
                QStringLiteral("--host \"%1\" is not HOST=https://ADDRESS:PORT[,FINGERPRINT] "
                               "(HOST: 1-64 of A-Z a-z 0-9 _ -; a pool host is reached over "
                               "TLS only, its token being derived for whoever answers; "
                               "FINGERPRINT as runbox-agent --print-fingerprint prints it)")
                    .arg(spec),
                kUsage);
        hosts << host;
    }
    if (hosts.isEmpty())
        return usageError("pool create",
                          QStringLiteral("give at least one --host HOST=https://ADDRESS:PORT, "
                                         "or --slurm PARTITION"),
                          kUsage);

    QByteArray json;
    QStringList added;
    if (const QString e = addHosts(fleet.path, hosts, pool, &json, &added); !e.isEmpty())
        return refuse(e);
    const QString secretPath = PoolSecret::defaultPath(pool);
    const bool secretExisted = QFileInfo::exists(secretPath);
    QString error;
    if (PoolSecret::readOrCreate(secretPath, &error).isEmpty())
        return refuse(error);
    if (!added.isEmpty()) { // atomically and 0600, as every writer of the fleet file
        FleetFile updated;
        if (const QString e = updated.parse(json, fleet.path); !e.isEmpty())
            return refuse(e);
        if (const QString e = updated.save(fleet.path); !e.isEmpty())
            return refuse(e);
    }

    const QStringList agentArgs{QStringLiteral("--pool"),
                                pool,
                                QStringLiteral("--pool-capacity"),
                                QString::number(perHost),
                                QStringLiteral("--pool-secret-file"),
                                QStringLiteral("FILE")};
    if (parsed.has(QStringLiteral("--json"))) {
        QJsonArray list;
        for (const HostSpec& host : hosts)
            list.append(QJsonObject{{"name", host.name},
                                    {"url", host.url},
                                    {"fingerprint", host.fingerprint},
                                    {"added", added.contains(host.name)}});
        QTextStream(stdout) << QJsonDocument(QJsonObject{{"pool", pool},
                                                         {"perHost", perHost},
                                                         {"secretFile", secretPath},
                                                         {"secretCreated", !secretExisted},
                                                         {"fleetFile", fleet.path},
                                                         {"hosts", list},
                                                         {"agentArgs",
                                                          QJsonArray::fromStringList(agentArgs)}})
                                   .toJson(QJsonDocument::Indented);
        return kExitOk;
    }
    QTextStream out(stdout);
    out << "pool " << pool << ": secret " << secretPath << (secretExisted ? " (kept)" : " (made)")
        << ", hosts in " << fleet.path << '\n';
    for (const HostSpec& host : hosts)
        out << "  " << host.name << ' ' << host.url
            << (added.contains(host.name) ? " (added)" : " (listed)") << '\n';
    out << "Start each host with: runbox-agent --listen-tls ADDRESS:PORT "
        << agentArgs.join(QLatin1Char(' '))
        << "\n  (FILE: a 0600 copy of the secret on that host, readable by the agent only; "
           "runbox-agent --print-fingerprint gives the FINGERPRINT to list)\n";
    return kExitOk;
}

} // namespace runbox::cli
