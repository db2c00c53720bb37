#include "cli/RunCommand.h"

#include "cli/CliOptions.h"
#include "cli/EnvironmentCommand.h"
#include "cli/ExecOptions.h"
#include "cli/LogsCommand.h"
#include "shared/ApiClient.h"

#include <QJsonDocument>
#include <QTextStream>

namespace runbox::cli {

int runManaged(ApiClient& client, QStringList args) {
    QTextStream err(stderr);
    const bool follow =
        takeFlag(&args, QStringLiteral("--follow")) || takeFlag(&args, QStringLiteral("-f"));
    ExecOptions options;
    if (const QString error = options.parse(&args); !error.isEmpty()) {
        err << "runbox run: " << error << Qt::endl;
        return 2;
    }
    if (const QString error = applyEnvironmentOption(client, &options.body); !error.isEmpty()) {
        err << "runbox run: " << error << Qt::endl;
        return 1;
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
    if (r.status != 202) {
        err << "runbox run: " << r.status << ' ' << r.errorCode() << ": " << r.errorMessage()
            << Qt::endl;
        return 1;
    }
    const QJsonObject record = r.json();
    const QString id = record.value(QLatin1String("executionId")).toString();
    if (!follow) {
        QTextStream out(stdout);
        if (options.json)
            out << QJsonDocument(record).toJson(QJsonDocument::Compact) << '\n';
        else
            out << id << '\n';
        return 0;
    }
    err << "execution " << id << Qt::endl;
    const LogStreamResult logged = streamLog(client, id, 0, true, options.json, "run");
    if (!logged.ok)
        return 1;
    return exitStatusOf(logged.exitEvent, "run");
}

} // namespace runbox::cli
