#include "cli/ExecCommand.h"

#include "cli/EnvironmentCommand.h"
#include "cli/ExecOptions.h"

#include <QEventLoop>
#include <QJsonDocument>
#include <QTextStream>

#include <cstdio>

namespace runbox::cli {

int runExec(ApiClient& client, QStringList args) {
    QTextStream err(stderr);
    ExecOptions options;
    if (const QString error = options.parse(&args); !error.isEmpty()) {
        err << "runbox exec: " << error << Qt::endl;
        return 2;
    }
    if (const QString error = applyEnvironmentOption(client, &options.body); !error.isEmpty()) {
        err << "runbox exec: " << error << Qt::endl;
        return 1;
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
    if (final.status != 200) {
        err << "runbox exec: " << final.status << ' ' << final.errorCode() << ": "
            << final.errorMessage() << Qt::endl;
        return 1;
    }
    return exitStatusOf(exitEvent, "exec");
}

} // namespace runbox::cli
