#include "cli/FleetTarget.h"

#include "cli/CliOptions.h"
#include "shared/FleetFile.h"
#include "shared/PoolClient.h"
#include "shared/PoolHostToken.h"
#include "shared/SlurmHosts.h"
#include "shared/SlurmPoolDefinition.h"

#include <QFileInfo>

#include <deque>

namespace runbox::cli {

namespace {

enum class Form { WorkspaceOption, Id, IdColonPath, ExecutionId };

QString g_pooledHost; ///< FleetTarget::pooledHost()

/// The argument forms @p command takes workspace ids in; empty when it takes none.
QList<Form> formsOf(const QString& command) {
    if (command == QLatin1String("exec") || command == QLatin1String("run") ||
        command == QLatin1String("ps"))
        return {Form::WorkspaceOption};
    if (command == QLatin1String("workspace"))
        return {Form::Id};
    if (command == QLatin1String("files") || command == QLatin1String("cp"))
        return {Form::IdColonPath};
    if (command == QLatin1String("logs") || command == QLatin1String("cancel"))
        return {Form::ExecutionId}; // `run` on a pooled workspace prints HOST.EXECUTION_ID
    return {};
}

/// The host of a Slurm pool named @p host (`POOL-JOBID`, SlurmHosts::hostName) as its job
/// published it, when POOL has a Slurm definition (docs/contracts.md "Slurm pools"); false
/// otherwise. The published file exists only while the job runs.
bool slurmHost(const QString& host, FleetAgent* out) {
    QString pool, jobId;
    if (!SlurmHosts::splitHostName(host, &pool, &jobId) ||
        !QFileInfo::exists(SlurmPoolDefinition::defaultPath(pool)))
        return false;
    QByteArray nonce;
    QString why;
    return SlurmHosts(pool, SlurmHosts::defaultHostsDir(pool)).published(jobId, out, &nonce, &why);
}

} // namespace

QString FleetTarget::pooledHost() {
    return g_pooledHost;
}

FleetTarget::Outcome FleetTarget::apply(const QString& command, QStringList* args,
                                        const FleetChoice& fleet, Connection* connection,
                                        QString* error) {
    const QList<Form> forms = formsOf(command);
    if (forms.isEmpty())
        return Outcome::None;
    // An execution id may hold a '.' of its own (a client chose it): with an agent named on
    // purpose, `logs`/`cancel` go there, whatever the fleet lists (with --pool, HOST.ID is meant).
    if (forms.contains(Form::ExecutionId) && connection->urlGiven && connection->poolName.isEmpty())
        return Outcome::None;
    // With --pool and --url, a pooled id whose host the fleet does not list names that URL.
    const bool byUrl = !connection->poolName.isEmpty();
    FleetFile file;
    if (fleet.explicitPath || QFileInfo::exists(fleet.path))
        if (const QString e = file.load(fleet.path); !e.isEmpty()) {
            *error = e;
            return Outcome::Failed;
        }
    std::deque<FleetAgent> slurmHosts; // stable addresses for target
    // A fleet agent, else a running Slurm pool host (`POOL-JOBID`).
    auto findAgent = [&](const QString& host) -> const FleetAgent* {
        if (const FleetAgent* listed = file.find(host))
            return listed;
        for (const FleetAgent& known : slurmHosts)
            if (known.name == host)
                return &known;
        FleetAgent found;
        if (!slurmHost(host, &found))
            return nullptr;
        slurmHosts.push_back(found);
        return &slurmHosts.back();
    };
    const FleetAgent* target = nullptr;
    bool urlTarget = false;
    // Rewrites @p value when it is a pooled id of the fleet; false on a second agent.
    auto rewrite = [&](QString* value, bool needsColon) -> bool {
        const qsizetype colon = value->indexOf(QLatin1Char(':'));
        if (needsColon && colon < 0)
            return true;
        const QString id = colon < 0 ? *value : value->left(colon);
        QString host, local;
        if (!PoolClient::splitPooledId(id, &host, &local))
            return true;
        const FleetAgent* agent = findAgent(host);
        if (!agent && !byUrl)
            return true;
        g_pooledHost = host;
        if (!agent || urlTarget) { // one of them goes to --url
            if (target || (urlTarget && agent)) {
                *error = QStringLiteral("pooled ids of two agents (%1, --url) in one command")
                             .arg(target ? target->name : agent->name);
                return false;
            }
            urlTarget = true;
            *value = local + (colon < 0 ? QString() : value->mid(colon));
            return true;
        }
        if (target && target != agent) {
            *error = QStringLiteral("pooled ids of two agents (%1, %2) in one command")
                         .arg(target->name, agent->name);
            return false;
        }
        target = agent;
        *value = local + (colon < 0 ? QString() : value->mid(colon));
        return true;
    };
    const qsizetype dash = args->indexOf(QStringLiteral("--"));
    for (qsizetype i = 0; i < args->size(); ++i) {
        QString& arg = (*args)[i];
        const bool afterDash = dash >= 0 && i > dash;
        bool ok = true;
        if (forms.contains(Form::WorkspaceOption) && !afterDash) {
            if (arg == QLatin1String("--workspace") && i + 1 < args->size() &&
                (dash < 0 || i + 1 < dash))
                ok = rewrite(&(*args)[++i], false);
            else if (arg.startsWith(QLatin1String("--workspace="))) {
                QString value = arg.mid(12);
                ok = rewrite(&value, false);
                arg = QStringLiteral("--workspace=") + value;
            }
        } else if (forms.contains(Form::Id) && !arg.startsWith(QLatin1Char('-')) && i > 0) {
            ok = rewrite(&arg, false); // args[0] is the subcommand
        } else if (forms.contains(Form::IdColonPath) && !arg.startsWith(QLatin1Char('-'))) {
            ok = rewrite(&arg, true);
        } else if (forms.contains(Form::ExecutionId) && !afterDash) {
            if (arg == QLatin1String("--offset"))
                ++i; // its value is a number, never an id
            else if (!arg.startsWith(QLatin1Char('-')))
                ok = rewrite(&arg, false);
        }
        if (!ok)
            return Outcome::Failed;
    }
    if (!target)
        return Outcome::None;
    if (target->viaSsh()) {
        *error = QStringLiteral("agent %1 is reached through ssh (the console's SSH tunnel), "
                                "which the CLI does not run: open one (docs/contracts.md "
                                "\"Unix socket\") and give its local end as --url")
                     .arg(target->name);
        return Outcome::Failed;
    }
    const QByteArray token = PoolHostToken::forFleetAgent(*target, error);
    if (token.isEmpty())
        return Outcome::Failed;
    connection->url = QUrl(target->url);
    connection->token = token;
    connection->pin = target->pin;
    return Outcome::Resolved;
}

QByteArray FleetTarget::pinFor(const FleetChoice& fleet, const QUrl& url, QString* warning) {
    if (url.scheme() != QLatin1String("https") || !QFileInfo::exists(fleet.path))
        return {};
    FleetFile file;
    if (const QString e = file.load(fleet.path); !e.isEmpty()) {
        *warning = e;
        return {};
    }
    for (const FleetAgent& agent : file.agents()) {
        const QUrl listed(agent.url);
        if (listed.scheme() == url.scheme() &&
            listed.host().compare(url.host(), Qt::CaseInsensitive) == 0 &&
            listed.port(443) == url.port(443))
            return agent.pin;
    }
    return {};
}

} // namespace runbox::cli
