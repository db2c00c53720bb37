// runbox: command-line client of a runbox-agent. Each command family lives in its own file;
// this one only finds the agent and dispatches.
#include "cli/CliOptions.h"
#include "cli/CopyCommand.h"
#include "cli/EnvironmentCommand.h"
#include "cli/ExecCommand.h"
#include "cli/ExecutionsCommand.h"
#include "cli/FilesCommand.h"
#include "cli/FleetTarget.h"
#include "cli/LogsCommand.h"
#include "cli/NpuCommand.h"
#include "cli/PolicyCommand.h"
#include "cli/PoolCommand.h"
#include "cli/QuotasCommand.h"
#include "cli/RunCommand.h"
#include "cli/WorkspaceCommand.h"
#include "shared/ApiClient.h"
#include "shared/FleetFile.h"
#include "shared/ProtocolVersion.h"

#include <QCoreApplication>
#include <QTextStream>

using namespace runbox;

namespace {

const char kUsage[] =
    "Usage: runbox [--state-dir DIR] [--url URL]\n"
    "              [--token TOKEN | --token-file FILE | --pool NAME]\n"
    "              [--fingerprint SHA256] [--fleet FILE] COMMAND\n"
    "  --pool NAME: the agent at --url is a host of pool NAME; its token is derived from the\n"
    "  pool's secret (~/.config/runbox/pools/NAME.secret, 0600) and the host nonce on its\n"
    "  /health; the secret is never sent. Pooled ids HOST.ID then go to --url\n"
    "  --url https://HOST:PORT with --fingerprint (or RUNBOX_FINGERPRINT) pins the agent's TLS\n"
    "  certificate (runbox-agent --print-fingerprint prints it); without a pin only a certificate\n"
    "  the system CA store verifies is accepted\n"
    "Commands (--json on every listing prints the agent's JSON instead of a table):\n"
    "  health                      liveness and the sandbox conclusion (/v1/health)\n"
    "  workspace create [--light [--count N] [--environment ID | --revision REV]] [--json]\n"
    "                              create a strong workspace, or N light ones (prints ID TOKEN),\n"
    "                              light ones with a science environment's current revision or\n"
    "                              one revision (a root agent)\n"
    "  workspace ls [--light|--strong] [--json]   list workspaces (also: runbox workspaces)\n"
    "  workspace rm ID...          delete workspaces\n"
    "  workspace usage ID... [--json]  disk usage as the workspace quota counts it\n"
    "  exec [options] -- ARGV...   run a command in a sandbox and stream its output\n"
    "  run [--follow] [options] -- ARGV...\n"
    "                              start a managed execution; prints its id (-f: follows it)\n"
    "       exec/run options: --kind shell|python|r --code CODE | --code-file FILE|-\n"
    "       --workspace ID --cwd DIR --env K=V --stdin TEXT --timeout 2h (or --timeout-ms N)\n"
    "       --max-output 512MiB (or --max-output-bytes N) --id EXECUTION_ID --json\n"
    "       --environment NAME (a science environment, docs/environments.md)\n"
    "       --npu 0,3 (NPU chips by logic id, as runbox npu ls lists them)\n"
    "  ps [-l] [--workspace W] [--state S,S] [--limit N] [--cursor C] [--json]\n"
    "                              list executions, newest first\n"
    "  logs [-f] [--offset N] [--json] ID\n"
    "                              an execution's output (bytes to stdout/stderr), resumable\n"
    "  cancel [--no-wait] ID       cancel a queued or running execution (waits until final)\n"
    "  quotas [--json]             show the quotas in force\n"
    "  quotas set [--workspace SIZE] [--output SIZE] [--upload-file SIZE]\n"
    "             [--upload-request SIZE] [--timeout DUR] [--max-timeout DUR]\n"
    "             [--concurrency N] [--light-workspaces N] [--memory 8GiB] [--processes N]\n"
    "             [--cpus 1.5]   (cores per execution; cgroup v2 hosts only)\n"
    "                              SIZE: 20GiB, 512MiB, 64KiB, bytes or unlimited;\n"
    "                              DUR: 500ms, 30s, 15m, 2h, 1h30m or unlimited\n"
    "  cp [--overwrite] [--mode MODE] [--parents] LOCAL WS:PATH   upload a file\n"
    "  cp WS:PATH LOCAL|-          download a file (to stdout with -)\n"
    "  files ls|stat [--json] WS:PATH     a directory's entries / one entry (links not followed)\n"
    "  files rm [-r] WS:PATH...  |  files mv [--overwrite] [-p] WS:FROM [WS:]TO\n"
    "  files mkdir [-p] WS:PATH...\n"
    "  policy show [--json] | policy set --allow DOMAIN... [--allow-private CIDR] | policy off\n"
    "                              the network policy of new executions\n"
    "  npu ls [--refresh] [--json] the host's Ascend chips (--refresh: probe them now)\n"
    "  pool ls [NAME] [--json]     the fleet's agents by pool: capacity, workspaces, free slots\n"
    "  pool create NAME --per-host N --host HOST=https://ADDR:PORT[,FINGERPRINT]... [--json]\n"
    "                              define a pool: its secret (made if missing) and its hosts\n"
    "                              (https only) added to the fleet file as \"pool\" entries;\n"
    "                              prints the runbox-agent options each host runs with\n"
    "  pool create NAME --per-host N --slurm PARTITION [--max-hosts M] [--exit-when-idle S]\n"
    "              [--sbatch-script FILE]\n"
    "                              a pool whose hosts are Slurm jobs: pool add boots them with\n"
    "                              sbatch when the running ones are full (one at a time, up to\n"
    "                              M), pool ls lists the jobs, pool rm cancels them\n"
    "  pool add NAME COUNT [--light|--strong] [--idle-timeout S] [--json]\n"
    "                              place COUNT workspaces on the pool's hosts, all or none\n"
    "                              (prints HOST.ID TOKEN)\n"
    "  pool rm NAME [--json]       delete every workspace on the pool's hosts\n"
    "       --fleet FILE: the fleet file {\"agents\":[{\"name\",\"url\",\"tokenFile\"}]}\n"
    "       (default ~/.config/runbox/fleet.json); exec/run/ps --workspace, workspace rm,\n"
    "       files and cp take pooled ids HOST.ID of its agents; an agent given\n"
    "       \"pool\": NAME instead of a tokenFile gets the token derived as with --pool\n"
    "  env ls | create NAME --python|--r | install|uninstall NAME PKG... | show NAME | rm NAME\n"
    "                              science environments (builds followed; --no-wait, --json)\n"
    "Every command refuses an option it does not know or one without its value.\n"
    "Exit status: 0 success; 1 the agent answered with an error; 2 usage error;\n"
    "  3 the agent could not be reached (or the connection broke, or its TLS certificate was\n"
    "  refused);\n"
    "  exec, run --follow and logs -f: the command's own exit status, 124 when it timed out,\n"
    "  125 when its sandbox could not be set up, 128+N when killed by signal N.\n";

int health(ApiClient& client, const QStringList& args) {
    cli::ParsedArgs parsed;
    if (!cli::parseCommandArgs("health", args, {{QStringLiteral("--json")}}, "runbox health",
                               &parsed))
        return cli::kExitUsage;
    if (!parsed.positional.isEmpty() || parsed.dashDash)
        return cli::usageError("health", QStringLiteral("takes no arguments"), "runbox health");
    return cli::printJsonResponse("health", client.call("GET", "/v1/health"));
}

using Command = int (*)(ApiClient&, const QStringList&);

/// The function that runs @p command, or nullptr for an unknown command.
Command findCommand(const QString& command) {
    static const QList<QPair<QString, Command>> kCommands{
        {QStringLiteral("health"), health},
        {QStringLiteral("workspaces"), cli::runWorkspacesAlias},
        {QStringLiteral("workspace"), cli::runWorkspace},
        {QStringLiteral("exec"), cli::runExec},
        {QStringLiteral("run"), cli::runManaged},
        {QStringLiteral("cp"), cli::runCopy},
        {QStringLiteral("files"), cli::runFiles},
        {QStringLiteral("ps"), cli::runPs},
        {QStringLiteral("logs"), cli::runLogs},
        {QStringLiteral("cancel"), cli::runCancel},
        {QStringLiteral("quotas"), cli::runQuotas},
        {QStringLiteral("policy"), cli::runPolicy},
        {QStringLiteral("npu"), cli::runNpu},
        {QStringLiteral("env"), cli::runEnvironments},
    };
    for (const auto& [name, run] : kCommands)
        if (command == name)
            return run;
    return nullptr;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QStringList args = app.arguments().mid(1);
    QTextStream err(stderr);
    const qsizetype dash = args.indexOf(QStringLiteral("--"));
    const QStringList options = dash < 0 ? args : args.mid(0, dash);
    if (args.isEmpty() || args.first() == QLatin1String("help") ||
        options.contains(QStringLiteral("--help"))) {
        QTextStream(stdout) << kUsage;
        return args.isEmpty() ? cli::kExitUsage : cli::kExitOk;
    }
    QString optionError;
    cli::FleetChoice fleet;
    fleet.path = cli::takeGlobalOption(&args, QStringLiteral("--fleet"), &optionError);
    fleet.explicitPath = !fleet.path.isEmpty();
    if (!fleet.explicitPath)
        fleet.path = FleetFile::defaultPath();
    cli::Connection connection;
    // A connection error matters only to a command that goes to the one agent it names.
    const QString connectionError = connection.parse(&args);
    if (!optionError.isEmpty() || args.isEmpty()) {
        err << (optionError.isEmpty() ? QString::fromLatin1(kUsage)
                                      : QStringLiteral("runbox: ") + optionError + '\n');
        return cli::kExitUsage;
    }
    const QString command = args.takeFirst();
    if (command == QLatin1String("pool")) // the fleet's agents, no connection options
        return cli::runPool(args, fleet);
    const Command run = findCommand(command);
    if (!run) { // a usage error, whatever the agent: nothing is sent
        err << "runbox: unknown command " << command << "\n" << kUsage;
        return cli::kExitUsage;
    }
    QString fleetError;
    switch (cli::FleetTarget::apply(command, &args, fleet, &connection, &fleetError)) {
    case cli::FleetTarget::Outcome::Failed:
        err << "runbox " << command << ": " << fleetError << Qt::endl;
        return cli::kExitUsage;
    case cli::FleetTarget::Outcome::None:
        if (!connectionError.isEmpty()) {
            err << "runbox: " << connectionError << Qt::endl;
            return cli::kExitUsage;
        }
        if (connection.pin.isEmpty()) { // the fleet file's pin for this agent, if it has one
            QString warning;
            connection.pin = cli::FleetTarget::pinFor(fleet, connection.url, &warning);
            if (!warning.isEmpty())
                err << "runbox: the fleet file is not read for a pin: " << warning << Qt::endl;
        }
        if (!connection.poolName.isEmpty()) // docs/contracts.md "Pool credential"
            if (const QString e = connection.derivePoolToken(); !e.isEmpty()) {
                err << "runbox " << command << ": " << e << Qt::endl;
                return cli::kExitUsage;
            }
        break;
    case cli::FleetTarget::Outcome::Resolved:
        break;
    }
    ApiClient client(connection.url, connection.token);
    client.setPinnedSha256(connection.pin);
    // One unsigned GET /health first: an agent of another protocol is refused before anything
    // is sent to it (shared/ProtocolVersion.h). A transport failure is left to the command,
    // which reports it as it always does.
    if (const ApiResponse health = client.call("GET", "/health", {}, 10000); health.status != 0) {
        if (const QString refusal =
                protocol::mismatch(health.json(), connection.url.toString(), "runbox");
            !refusal.isEmpty()) {
            err << "runbox: " << refusal << Qt::endl;
            return cli::kExitApiError;
        }
    }
    return run(client, args);
}
