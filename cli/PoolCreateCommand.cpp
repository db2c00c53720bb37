#include "cli/PoolCreateCommand.h"

#include "cli/CliOptions.h"
#include "cli/FleetTarget.h"
#include "shared/FleetFile.h"
#include "shared/PoolSecret.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>
#include <QUrl>

namespace runbox::cli {

namespace {

const char kUsage[] =
    "runbox [--fleet FILE] pool create NAME --per-host N --host HOST=URL... [--json]";

int refuse(const QString& message) {
    QTextStream(stderr) << "runbox pool create: " << message << Qt::endl;
    return kExitUsage;
}

/// The fleet file with @p hosts (name → URL) added as entries of @p pool in @p result, or an
/// error: the file does not load (FleetFile's rules), or a host is listed otherwise (another
/// URL, a token file, another pool). @p added gets the names that were not there yet.
QString addHosts(const QString& path, const QList<QPair<QString, QString>>& hosts,
                 const QString& pool, FleetFile* result, QStringList* added) {
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
    for (const auto& [name, url] : hosts) {
        if (const FleetAgent* listed = fleet.find(name)) {
            if (listed->pool != pool || QUrl(listed->url) != QUrl(url))
                return QStringLiteral("host %1 is already in %2 as %3 (%4); remove it there or "
                                      "name the host otherwise")
                    .arg(name, path, listed->url,
                         listed->pool.isEmpty() ? QStringLiteral("not of a pool")
                                                : QStringLiteral("pool ") + listed->pool);
            continue;
        }
        agents.append(QJsonObject{{"name", name}, {"url", url}, {"pool", pool}});
        *added << name;
    }
    root.insert(QStringLiteral("agents"), agents);
    // What is written must load: parsed back, then written by FleetFile::save.
    return result->parse(QJsonDocument(root).toJson(QJsonDocument::Indented), path);
}

} // namespace

int runPoolCreate(const QStringList& args, const FleetChoice& fleet) {
    ParsedArgs parsed;
    if (!parseCommandArgs("pool create", args,
                          {{QStringLiteral("--json")},
                           {QStringLiteral("--per-host"), true},
                           {QStringLiteral("--host"), true}},
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
    QList<QPair<QString, QString>> hosts;
    for (const QString& spec : parsed.values(QStringLiteral("--host"))) {
        const qsizetype eq = spec.indexOf(QLatin1Char('='));
        const QString name = spec.left(eq), url = eq < 0 ? QString() : spec.mid(eq + 1);
        const QUrl parsedUrl(url);
        if (!FleetFile::validName(name) || !parsedUrl.isValid() || parsedUrl.host().isEmpty() ||
            (parsedUrl.scheme() != QLatin1String("http") &&
             parsedUrl.scheme() != QLatin1String("https")))
            return usageError("pool create",
                              QStringLiteral("--host \"%1\" is not HOST=http(s)://ADDRESS:PORT "
                                             "(HOST: 1-64 of A-Z a-z 0-9 _ -)")
                                  .arg(spec),
                              kUsage);
        hosts << qMakePair(name, url);
    }
    if (hosts.isEmpty())
        return usageError("pool create", QStringLiteral("give at least one --host HOST=URL"),
                          kUsage);

    FleetFile updated;
    QStringList added;
    if (const QString e = addHosts(fleet.path, hosts, pool, &updated, &added); !e.isEmpty())
        return refuse(e);
    const QString secretPath = PoolSecret::defaultPath(pool);
    const bool secretExisted = QFileInfo::exists(secretPath);
    QString error;
    if (PoolSecret::readOrCreate(secretPath, &error).isEmpty())
        return refuse(error);
    // Written as the console writes it (docs/contracts.md "Fleet file"): atomically and 0600,
    // whatever the umask, so no one else may change where the tokens go.
    if (!added.isEmpty())
        if (const QString e = updated.save(fleet.path); !e.isEmpty())
            return refuse(e);

    const QStringList agentArgs{QStringLiteral("--pool"),
                                pool,
                                QStringLiteral("--pool-capacity"),
                                QString::number(perHost),
                                QStringLiteral("--pool-secret-file"),
                                QStringLiteral("FILE")};
    if (parsed.has(QStringLiteral("--json"))) {
        QJsonArray list;
        for (const auto& [name, url] : hosts)
            list.append(QJsonObject{{"name", name}, {"url", url}, {"added", added.contains(name)}});
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
    for (const auto& [name, url] : hosts)
        out << "  " << name << ' ' << url << (added.contains(name) ? " (added)" : " (listed)")
            << '\n';
    out << "Start each host with: runbox-agent " << agentArgs.join(QLatin1Char(' '))
        << "\n  (FILE: a 0600 copy of the secret on that host, readable by the agent only)\n";
    return kExitOk;
}

} // namespace runbox::cli
