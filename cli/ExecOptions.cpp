#include "cli/ExecOptions.h"

#include "cli/Units.h"
#include "shared/ApiClient.h"

#include <QFile>
#include <QJsonArray>
#include <QTextStream>

#include <cstdio>

namespace runbox::cli {

QList<OptionSpec> ExecOptions::optionSpecs() {
    QList<OptionSpec> specs;
    for (const char* name : {"--workspace", "--kind", "--code", "--code-file", "--cwd", "--env",
                             "--timeout-ms", "--timeout", "--max-output-bytes", "--max-output",
                             "--stdin", "--id", "--environment", "--npu"})
        specs.append({QLatin1String(name), true});
    specs.append({QStringLiteral("--json")});
    return specs;
}

QString ExecOptions::parse(const ParsedArgs& args) {
    QString error;
    workspace = args.value(QStringLiteral("--workspace"));
    const QString kind = args.value(QStringLiteral("--kind"));
    QString code = args.value(QStringLiteral("--code"));
    const QString codeFile = args.value(QStringLiteral("--code-file"));
    const QString cwd = args.value(QStringLiteral("--cwd"));
    const QStringList envPairs = args.values(QStringLiteral("--env"));
    const QString timeoutMs = args.value(QStringLiteral("--timeout-ms"));
    const QString timeout = args.value(QStringLiteral("--timeout"));
    const QString maxOutputBytes = args.value(QStringLiteral("--max-output-bytes"));
    const QString maxOutput = args.value(QStringLiteral("--max-output"));
    const QString stdinText = args.value(QStringLiteral("--stdin"));
    const QString id = args.value(QStringLiteral("--id"));
    const QString environment = args.value(QStringLiteral("--environment"));
    const QString npu = args.value(QStringLiteral("--npu"));
    json = args.has(QStringLiteral("--json"));
    if (!args.positional.isEmpty())
        return QStringLiteral("unexpected argument \"%1\" (the command goes after --)")
            .arg(args.positional.first());
    if (!codeFile.isEmpty()) {
        QFile f(codeFile);
        if (codeFile == QLatin1String("-") ? !f.open(stdin, QIODevice::ReadOnly)
                                           : !f.open(QIODevice::ReadOnly))
            return QStringLiteral("cannot read %1").arg(codeFile);
        code = QString::fromUtf8(f.readAll());
    }
    body = {};
    if (!kind.isEmpty()) {
        if (args.dashDash)
            return QStringLiteral("give either --kind KIND --code CODE or -- ARGV..., not both");
        body.insert(QStringLiteral("kind"), kind);
        body.insert(QStringLiteral("code"), code);
    } else if (!args.rest.isEmpty()) {
        body.insert(QStringLiteral("argv"), QJsonArray::fromStringList(args.rest));
        if (!stdinText.isEmpty())
            body.insert(QStringLiteral("stdin"), stdinText);
    } else {
        return QStringLiteral("give --kind KIND --code CODE, or -- ARGV...");
    }
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
    if (args.has(QStringLiteral("--npu"))) {
        // Chip logic ids as the agent lists them (`runbox npu ls`); the agent checks them.
        QJsonArray chips;
        for (const QString& part : npu.split(QLatin1Char(','))) {
            bool ok = false;
            const int id = part.trimmed().toInt(&ok);
            if (!ok || id < 0)
                return QStringLiteral("--npu expects chip logic ids like 0,3, got %1").arg(npu);
            chips.append(id);
        }
        body.insert(QStringLiteral("npuDevices"), chips);
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
        return kExitSetupFailed;
    if (status == QLatin1String("timed_out"))
        return kExitTimeout;
    const int exitCode = exitEvent.value(QLatin1String("exitCode")).toInt(-1);
    if (exitCode >= 0)
        return exitCode;
    const int signal = exitEvent.value(QLatin1String("signal")).toInt(0);
    return signal > 0 && signal < 128 ? 128 + signal : kExitApiError;
}

} // namespace runbox::cli
