#include "cli/ExecCommand.h"

#include "cli/EnvironmentCommand.h"
#include "cli/ExecOptions.h"

#include <QEventLoop>
#include <QJsonDocument>
#include <QTextStream>

#include <cstdio>

namespace runbox::cli {

namespace {
const char kUsage[] = "runbox exec [--workspace ID] [--kind shell|python|r --code CODE | "
                      "--code-file FILE|-] [options] [-- ARGV...]   (runbox --help)";
} // namespace

int runExec(ApiClient& client, const QStringList& args) {
    QTextStream err(stderr);
    ParsedArgs parsed;
    if (!parseCommandArgs("exec", args, ExecOptions::optionSpecs(), kUsage, &parsed))
        return kExitUsage;
    ExecOptions options;
    if (const QString error = options.parse(parsed); !error.isEmpty())
        return usageError("exec", error, kUsage);
    int environmentExit = kExitApiError;
    if (const QString error = applyEnvironmentOption(client, &options.body, &environmentExit);
        !error.isEmpty()) {
        err << "runbox exec: " << error << Qt::endl;
        return environmentExit;
    }
    QString workspace = options.workspace;
    const bool ephemeral = workspace.isEmpty();
    if (ephemeral) {
        QString error;
        workspace = createWorkspace(client, &error);
        if (workspace.isEmpty()) {
            err << "runbox exec: " << error << Qt::endl;
            return 1;
        }
    }

    QJsonObject exitEvent;
    ApiResponse final;
    QEventLoop loop;
    client.stream(
        "POST", "/v1/workspaces/" + workspace.toUtf8() + "/exec",
        QJsonDocument(options.body).toJson(QJsonDocument::Compact),
        [&](const QJsonObject& ev) {
            const QString type = ev.value(QLatin1String("type")).toString();
            if (options.json)
                writeBytes(stdout, QJsonDocument(ev).toJson(QJsonDocument::Compact) + '\n');
            else if (type == QLatin1String("stdout"))
                writeBytes(stdout, eventBytes(ev));
            else if (type == QLatin1String("stderr"))
                writeBytes(stderr, eventBytes(ev));
            if (type == QLatin1String("exit"))
                exitEvent = ev;
        },
        [&](const ApiResponse& r) {
            final = r;
            loop.quit();
        });
    loop.exec();
    if (ephemeral)
        client.call("DELETE", "/v1/workspaces/" + workspace.toUtf8());
    if (final.status != 200)
        return reportFailure("exec", final);
    if (exitEvent.isEmpty()) {
        err << "runbox exec: the connection broke before the exit event" << Qt::endl;
        return kExitConnection;
    }
    return exitStatusOf(exitEvent, "exec");
}

} // namespace runbox::cli
