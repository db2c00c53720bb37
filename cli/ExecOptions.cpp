#include "cli/ExecOptions.h"

#include "cli/CliOptions.h"
#include "cli/Units.h"
#include "shared/ApiClient.h"

#include <QFile>
#include <QJsonArray>
#include <QTextStream>

#include <cstdio>

namespace runbox::cli {

QString ExecOptions::parse(QStringList* args) {
    QString error;
    workspace = takeOption(args, QStringLiteral("--workspace"), &error);
    const QString kind = takeOption(args, QStringLiteral("--kind"), &error);
    QString code = takeOption(args, QStringLiteral("--code"), &error);
    const QString codeFile = takeOption(args, QStringLiteral("--code-file"), &error);
    const QString cwd = takeOption(args, QStringLiteral("--cwd"), &error);
    const QStringList envPairs = takeRepeatedOption(args, QStringLiteral("--env"), &error);
    const QString timeoutMs = takeOption(args, QStringLiteral("--timeout-ms"), &error);
    const QString timeout = takeOption(args, QStringLiteral("--timeout"), &error);
    const QString maxOutputBytes = takeOption(args, QStringLiteral("--max-output-bytes"), &error);
    const QString maxOutput = takeOption(args, QStringLiteral("--max-output"), &error);
    const QString stdinText = takeOption(args, QStringLiteral("--stdin"), &error);
    const QString id = takeOption(args, QStringLiteral("--id"), &error);
    const QString environment = takeOption(args, QStringLiteral("--environment"), &error);
    json = takeFlag(args, QStringLiteral("--json"));
    if (!error.isEmpty())
        return error;
    if (!codeFile.isEmpty()) {
        QFile f(codeFile);
        if (codeFile == QLatin1String("-") ? !f.open(stdin, QIODevice::ReadOnly)
                                           : !f.open(QIODevice::ReadOnly))
            return QStringLiteral("cannot read %1").arg(codeFile);
        code = QString::fromUtf8(f.readAll());
    }
    body = {};
    const qsizetype dash = args->indexOf(QStringLiteral("--"));
    if (!kind.isEmpty()) {
        body.insert(QStringLiteral("kind"), kind);
        body.insert(QStringLiteral("code"), code);
    } else if (dash >= 0 && dash + 1 < args->size()) {
        body.insert(QStringLiteral("argv"), QJsonArray::fromStringList(args->mid(dash + 1)));
        if (!stdinText.isEmpty())
            body.insert(QStringLiteral("stdin"), stdinText);
        args->remove(dash, args->size() - dash);
    } else {
        return QStringLiteral("give --kind KIND --code CODE, or -- ARGV...");
    }
    if (!args->isEmpty())
        return QStringLiteral("unexpected argument \"%1\"").arg(args->first());
    if (!cwd.isEmpty())
        body.insert(QStringLiteral("cwd"), cwd);
    if (!id.isEmpty())
        body.insert(QStringLiteral("executionId"), id);
    // A name until applyEnvironmentOption() turns it into the id (cli/EnvironmentCommand.h).
    if (!environment.isEmpty())
        body.insert(QStringLiteral("environmentId"), environment);
    if (!timeout.isEmpty() || !timeoutMs.isEmpty()) {
        const auto ms = timeout.isEmpty() ? parseDurationMs(timeoutMs, &error)
                                          : parseDurationMs(timeout, &error);
        if (!ms)
            return error;
        body.insert(QStringLiteral("executionTimeoutMs"), *ms);
    }
    if (!maxOutput.isEmpty() || !maxOutputBytes.isEmpty()) {
        const auto bytes = maxOutput.isEmpty() ? parseBytes(maxOutputBytes, &error)
                                               : parseBytes(maxOutput, &error);
        if (!bytes)
            return error;
        body.insert(QStringLiteral("maxOutputBytes"), *bytes);
    }
    QJsonObject env;
    for (const QString& pair : envPairs) {
        const qsizetype eq = pair.indexOf('=');
        if (eq <= 0)
            return QStringLiteral("--env expects NAME=VALUE, got %1").arg(pair);
        env.insert(pair.left(eq), pair.mid(eq + 1));
    }
    if (!env.isEmpty())
        body.insert(QStringLiteral("env"), env);
    return {};
}

QString createWorkspace(ApiClient& client, QString* error) {
    const ApiResponse created =
        client.call("POST", "/v1/workspaces", QJsonObject{{"isolation", "strong"}});
    if (!created.ok()) {
        *error = QStringLiteral("cannot create a workspace: %1").arg(created.errorMessage());
        return {};
    }
    return created.json()
        .value(QLatin1String("workspaces"))
        .toArray()
        .first()
        .toObject()
        .value(QLatin1String("id"))
        .toString();
}

void writeBytes(FILE* f, const QByteArray& bytes) {
    fwrite(bytes.constData(), 1, size_t(bytes.size()), f);
    fflush(f);
}

QByteArray eventBytes(const QJsonObject& ev) {
    if (ev.contains(QLatin1String("dataBase64")))
        return QByteArray::fromBase64(ev.value(QLatin1String("dataBase64")).toString().toLatin1());
    return ev.value(QLatin1String("data")).toString().toUtf8();
}

int exitStatusOf(const QJsonObject& exitEvent, const char* command) {
    QTextStream err(stderr);
    const QString status = exitEvent.value(QLatin1String("status")).toString();
    if (status.isEmpty()) {
        err << "runbox " << command << ": the stream ended without an exit event" << Qt::endl;
        return 1;
    }
    if (status != QLatin1String("completed") && status != QLatin1String("failed"))
        err << "runbox " << command << ": " << status << ": "
            << exitEvent.value(QLatin1String("reason")).toString() << Qt::endl;
    if (status == QLatin1String("setup_failed"))
        return 125;
    const int exitCode = exitEvent.value(QLatin1String("exitCode")).toInt(-1);
    return exitCode >= 0 ? exitCode : 1;
}

} // namespace runbox::cli
