#include "cli/RunCommand.h"

#include "cli/CliOptions.h"
#include "cli/EnvironmentCommand.h"
#include "cli/ExecOptions.h"
#include "cli/FleetTarget.h"
#include "cli/LogsCommand.h"
#include "shared/ApiClient.h"
#include "shared/PoolClient.h"

#include <QJsonDocument>
#include <QTextStream>

namespace runbox::cli {

namespace {
const char kUsage[] =
    "runbox run [--follow|-f] [--workspace ID] [--kind shell|python|r --code CODE "
    "| --code-file FILE|-] [options] [-- ARGV...]   (runbox --help)";
} // namespace

int runManaged(ApiClient& client, const QStringList& args) {
    QTextStream err(stderr);
    ParsedArgs parsed;
    if (!parseCommandArgs("run", args,
                          ExecOptions::optionSpecs() << OptionSpec{QStringLiteral("--follow"),
                                                                   false, QStringLiteral("-f")},
                          kUsage, &parsed))
        return kExitUsage;
    const bool follow = parsed.has(QStringLiteral("--follow"));
    ExecOptions options;
    if (const QString error = options.parse(parsed); !error.isEmpty())
        return usageError("run", error, kUsage);
    int environmentExit = kExitApiError;
    if (const QString error = applyEnvironmentOption(client, &options.body, &environmentExit);
        !error.isEmpty()) {
        err << "runbox run: " << error << Qt::endl;
        return environmentExit;
    }
    QString workspace = options.workspace;
    if (workspace.isEmpty()) {
        QString error;
        workspace = createWorkspace(client, &error);
        if (workspace.isEmpty()) {
            err << "runbox run: " << error << Qt::endl;
            return 1;
        }
        err << "workspace " << workspace << Qt::endl;
    }
    QJsonObject body = options.body;
    body.insert(QStringLiteral("workspace"), workspace);
    const ApiResponse r = client.call("POST", "/v1/executions", body);
    if (r.status != 202)
        return reportFailure("run", r);
    QJsonObject record = r.json();
    const QString id = record.value(QLatin1String("executionId")).toString();
    if (const QString host = FleetTarget::pooledHost(); !host.isEmpty())
        record.insert(QStringLiteral("pooledExecutionId"), PoolClient::pooledId(host, id));
    if (!follow) {
        QTextStream out(stdout);
        if (options.json)
            out << QJsonDocument(record).toJson(QJsonDocument::Compact) << '\n';
        else if (const QString host = FleetTarget::pooledHost(); !host.isEmpty())
            out << PoolClient::pooledId(host, id) << '\n'; // logs/cancel take it as it is
        else
            out << id << '\n';
        return 0;
    }
    err << "execution " << id << Qt::endl;
    const LogStreamResult logged = streamLog(client, id, 0, true, options.json, "run");
    if (!logged.ok)
        return logged.failureExit;
    return exitStatusOf(logged.exitEvent, "run");
}

} // namespace runbox::cli
