// runbox: command-line client of a runbox-agent. Each command family lives in its own file;
// this one only finds the agent and dispatches.
#include "cli/CliOptions.h"
#include "cli/CopyCommand.h"
#include "cli/EnvironmentCommand.h"
#include "cli/ExecCommand.h"
#include "cli/ExecutionsCommand.h"
#include "cli/LogsCommand.h"
#include "cli/QuotasCommand.h"
#include "cli/RunCommand.h"
#include "shared/ApiClient.h"
#include "shared/ProtocolVersion.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>

using namespace runbox;

namespace {

const char kUsage[] =
    "Usage: runbox [--state-dir DIR] [--url URL] [--token TOKEN | --token-file FILE] COMMAND\n"
    "Commands:\n"
    "  health                      liveness and the sandbox conclusion (/v1/health)\n"
    "  workspaces                  list workspaces\n"
    "  workspace create|delete ID  create a strong workspace (prints id and token) / delete one\n"
    "  exec [options] -- ARGV...   run a command in a sandbox and stream its output\n"
    "  run [--follow] [options] -- ARGV...\n"
    "                              start a managed execution; prints its id (-f: follows it)\n"
    "       exec/run options: --kind shell|python|r --code CODE | --code-file FILE|-\n"
    "       --workspace ID --cwd DIR --env K=V --stdin TEXT --timeout 2h (or --timeout-ms N)\n"
    "       --max-output 512MiB (or --max-output-bytes N) --id EXECUTION_ID --json\n"
    "       --environment NAME (a science environment, docs/environments.md)\n"
    "  ps [--workspace W] [--state S,S] [--limit N] [--cursor C] [--json]\n"
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
    "  env ls | create NAME --python|--r | install|uninstall NAME PKG... | show NAME | rm NAME\n"
    "                              science environments (builds followed; --no-wait, --json)\n";

int printJson(const ApiResponse& r) {
    QTextStream out(stdout), err(stderr);
    if (!r.ok()) {
        err << "runbox: " << r.status << ' ' << r.errorCode() << ": " << r.errorMessage()
            << Qt::endl;
        return 1;
    }
    out << QJsonDocument::fromJson(r.body).toJson(QJsonDocument::Indented);
    return 0;
}

int dispatch(ApiClient& client, const QString& command, const QStringList& args) {
    if (command == QLatin1String("health"))
        return printJson(client.call("GET", "/v1/health"));
    if (command == QLatin1String("workspaces"))
        return printJson(client.call("GET", "/v1/workspaces"));
    if (command == QLatin1String("workspace") && args.value(0) == QLatin1String("create"))
        return printJson(
            client.call("POST", "/v1/workspaces", QJsonObject{{"isolation", "strong"}}));
    if (command == QLatin1String("workspace") && args.value(0) == QLatin1String("delete") &&
        args.size() == 2)
        return printJson(client.call("DELETE", "/v1/workspaces/" + args.at(1).toUtf8()));
    if (command == QLatin1String("exec"))
        return cli::runExec(client, args);
    if (command == QLatin1String("run"))
        return cli::runManaged(client, args);
    if (command == QLatin1String("cp"))
        return cli::runCopy(client, args);
    if (command == QLatin1String("ps"))
        return cli::runPs(client, args);
    if (command == QLatin1String("logs"))
        return cli::runLogs(client, args);
    if (command == QLatin1String("cancel"))
        return cli::runCancel(client, args);
    if (command == QLatin1String("quotas"))
        return cli::runQuotas(client, args);
    if (command == QLatin1String("env"))
        return cli::runEnvironments(client, args);
    QTextStream(stderr) << "runbox: unknown command " << command << "\n" << kUsage;
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QStringList args = app.arguments().mid(1);
    QTextStream err(stderr);
    if (args.isEmpty() || args.first() == QLatin1String("--help") ||
        args.first() == QLatin1String("help")) {
        QTextStream(stdout) << kUsage;
        return args.isEmpty() ? 2 : 0;
    }
    cli::Connection connection;
    if (const QString e = connection.parse(&args); !e.isEmpty()) {
        err << "runbox: " << e << Qt::endl;
        return 2;
    }
    if (args.isEmpty()) {
        err << kUsage;
        return 2;
    }
    ApiClient client(connection.url, connection.token);
    // One unsigned GET /health first: an agent of another protocol is refused before anything
    // is sent to it (shared/ProtocolVersion.h). A transport failure is left to the command,
    // which reports it as it always does.
    if (const ApiResponse health = client.call("GET", "/health", {}, 10000); health.status != 0) {
        if (const QString refusal =
                protocol::mismatch(health.json(), connection.url.toString(), "runbox");
            !refusal.isEmpty()) {
            err << "runbox: " << refusal << Qt::endl;
            return 1;
        }
    }
    const QString command = args.takeFirst();
    return dispatch(client, command, args);
}
