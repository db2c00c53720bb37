#include "cli/ExecCommand.h"

#include "cli/CliOptions.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkReply>
#include <QTextStream>

#include <cstdio>

namespace runbox::cli {

namespace {

void writeOut(FILE* f, const QByteArray& bytes) {
    fwrite(bytes.constData(), 1, size_t(bytes.size()), f);
    fflush(f);
}

QByteArray eventBytes(const QJsonObject& ev) {
    if (ev.contains(QLatin1String("dataBase64")))
        return QByteArray::fromBase64(ev.value(QLatin1String("dataBase64")).toString().toLatin1());
    return ev.value(QLatin1String("data")).toString().toUtf8();
}

} // namespace

int runExec(ApiClient& client, QStringList args) {
    QString error;
    QString workspace = takeOption(&args, QStringLiteral("--workspace"), &error);
    const QString kind = takeOption(&args, QStringLiteral("--kind"), &error);
    QString code = takeOption(&args, QStringLiteral("--code"), &error);
    const QString codeFile = takeOption(&args, QStringLiteral("--code-file"), &error);
    const QString cwd = takeOption(&args, QStringLiteral("--cwd"), &error);
    const QStringList envPairs = takeRepeatedOption(&args, QStringLiteral("--env"), &error);
    const QString timeout = takeOption(&args, QStringLiteral("--timeout-ms"), &error);
    const QString maxOutput = takeOption(&args, QStringLiteral("--max-output-bytes"), &error);
    const QString stdinText = takeOption(&args, QStringLiteral("--stdin"), &error);
    const QString id = takeOption(&args, QStringLiteral("--id"), &error);
    const bool json = takeFlag(&args, QStringLiteral("--json"));
    QTextStream err(stderr);
    if (!error.isEmpty()) {
        err << "runbox exec: " << error << Qt::endl;
        return 2;
    }
    if (!codeFile.isEmpty()) {
        QFile f(codeFile);
        if (codeFile == QLatin1String("-") ? !f.open(stdin, QIODevice::ReadOnly)
                                           : !f.open(QIODevice::ReadOnly)) {
            err << "runbox exec: cannot read " << codeFile << Qt::endl;
            return 2;
        }
        code = QString::fromUtf8(f.readAll());
    }
    QJsonObject body;
    const qsizetype dash = args.indexOf(QStringLiteral("--"));
    if (!kind.isEmpty()) {
        body.insert(QStringLiteral("kind"), kind);
        body.insert(QStringLiteral("code"), code);
    } else if (dash >= 0 && dash + 1 < args.size()) {
        body.insert(QStringLiteral("argv"), QJsonArray::fromStringList(args.mid(dash + 1)));
        if (!stdinText.isEmpty())
            body.insert(QStringLiteral("stdin"), stdinText);
    } else {
        err << "runbox exec: give --kind KIND --code CODE, or -- ARGV..." << Qt::endl;
        return 2;
    }
    if (!cwd.isEmpty())
        body.insert(QStringLiteral("cwd"), cwd);
    if (!id.isEmpty())
        body.insert(QStringLiteral("executionId"), id);
    if (!timeout.isEmpty())
        body.insert(QStringLiteral("executionTimeoutMs"), timeout.toLongLong());
    if (!maxOutput.isEmpty())
        body.insert(QStringLiteral("maxOutputBytes"), maxOutput.toLongLong());
    QJsonObject env;
    for (const QString& pair : envPairs) {
        const qsizetype eq = pair.indexOf('=');
        if (eq <= 0) {
            err << "runbox exec: --env expects NAME=VALUE, got " << pair << Qt::endl;
            return 2;
        }
        env.insert(pair.left(eq), pair.mid(eq + 1));
    }
    if (!env.isEmpty())
        body.insert(QStringLiteral("env"), env);

    bool ephemeral = false;
    if (workspace.isEmpty()) {
        const ApiResponse created =
            client.call("POST", "/v1/workspaces", QJsonObject{{"isolation", "strong"}});
        if (!created.ok()) {
            err << "runbox exec: cannot create a workspace: " << created.errorMessage() << Qt::endl;
            return 1;
        }
        workspace =
            created.json().value("workspaces").toArray().first().toObject().value("id").toString();
        ephemeral = true;
    }

    QJsonObject exitEvent;
    ApiResponse final;
    QEventLoop loop;
    client.stream(
        "POST", "/v1/workspaces/" + workspace.toUtf8() + "/exec",
        QJsonDocument(body).toJson(QJsonDocument::Compact),
        [&](const QJsonObject& ev) {
            const QString type = ev.value(QLatin1String("type")).toString();
            if (json)
                writeOut(stdout, QJsonDocument(ev).toJson(QJsonDocument::Compact) + '\n');
            else if (type == QLatin1String("stdout"))
                writeOut(stdout, eventBytes(ev));
            else if (type == QLatin1String("stderr"))
                writeOut(stderr, eventBytes(ev));
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
    const QString status = exitEvent.value(QLatin1String("status")).toString();
    if (status.isEmpty()) {
        err << "runbox exec: the stream ended without an exit event" << Qt::endl;
        return 1;
    }
    if (status != QLatin1String("completed") && status != QLatin1String("failed"))
        err << "runbox exec: " << status << ": " << exitEvent.value("reason").toString()
            << Qt::endl;
    if (status == QLatin1String("setup_failed"))
        return 125;
    const int exitCode = exitEvent.value(QLatin1String("exitCode")).toInt(-1);
    return exitCode >= 0 ? exitCode : 1;
}

} // namespace runbox::cli
