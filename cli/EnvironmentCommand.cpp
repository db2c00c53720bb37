#include "cli/EnvironmentCommand.h"

#include "cli/CliOptions.h"
#include "cli/ExecOptions.h"
#include "cli/LogsCommand.h"
#include "shared/ApiClient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>

namespace runbox::cli {

namespace {

const char kUsage[] =
    "runbox env ls [--json] | create NAME --python|--r [--provisioner P] "
    "[--no-wait] | install NAME [--wheel WS:PATH]... [--channel C]... [--index-url URL] [--] "
    "PKG... [--no-wait] | uninstall NAME [--] PKG... [--no-wait] | show NAME "
    "[--json] | rm NAME";

int refused(const char* what, const ApiResponse& r) {
    return reportFailure((QByteArray("env ") + what).constData(), r);
}

int usage(const QString& text) {
    return usageError("env", text, kUsage);
}

/// The options each `env` subcommand takes (ParsedArgs refuses any other).
QList<OptionSpec> optionsOf(const QString& sub) {
    const OptionSpec json{QStringLiteral("--json")}, noWait{QStringLiteral("--no-wait")};
    if (sub == QLatin1String("ls") || sub == QLatin1String("show"))
        return {json};
    if (sub == QLatin1String("create"))
        return {noWait,
                {QStringLiteral("--python")},
                {QStringLiteral("--r")},
                {QStringLiteral("--provisioner"), true}};
    if (sub == QLatin1String("install"))
        return {noWait,
                {QStringLiteral("--wheel"), true},
                {QStringLiteral("--channel"), true},
                {QStringLiteral("--index-url"), true}};
    if (sub == QLatin1String("uninstall"))
        return {noWait};
    return {};
}

/// Follows build @p executionId: its log goes to stderr (stdout stays for results), then the
/// exit status of the build (0 when it completed).
int followBuild(ApiClient& client, const QString& executionId) {
    QTextStream(stderr) << "build " << executionId << Qt::endl;
    const LogStreamResult r = streamLog(client, executionId, 0, true, false, "env");
    if (!r.ok)
        return r.failureExit;
    return exitStatusOf(r.exitEvent, "env") == 0 ? 0 : 1;
}

QString line(const QJsonObject& e) {
    return QStringLiteral("%1\t%2\t%3\t%4")
        .arg(e.value("name").toString(), e.value("id").toString(), e.value("status").toString(),
             e.value("currentRevisionId").isString() ? e.value("currentRevisionId").toString()
                                                     : QStringLiteral("-"));
}

} // namespace

QString resolveEnvironmentId(ApiClient& client, const QString& nameOrId, QString* error,
                             int* exitCode) {
    if (exitCode)
        *exitCode = kExitApiError;
    const ApiResponse r = client.call("GET", "/v1/environments");
    if (!r.ok()) {
        *error = QStringLiteral("cannot list environments: %1").arg(r.errorMessage());
        if (exitCode)
            *exitCode = failureExit(r);
        return {};
    }
    for (const QJsonValue& v : r.json().value(QLatin1String("environments")).toArray()) {
        const QJsonObject e = v.toObject();
        if (e.value("name").toString() == nameOrId || e.value("id").toString() == nameOrId)
            return e.value("id").toString();
    }
    *error = QStringLiteral("no environment named %1").arg(nameOrId);
    return {};
}

QString applyEnvironmentOption(ApiClient& client, QJsonObject* body, int* exitCode) {
    const QString name = body->value(QLatin1String("environmentId")).toString();
    if (name.isEmpty())
        return {};
    QString error;
    const QString id = resolveEnvironmentId(client, name, &error, exitCode);
    if (id.isEmpty())
        return error;
    body->insert(QStringLiteral("environmentId"), id);
    return {};
}

int runEnvironments(ApiClient& client, const QStringList& rawArgs) {
    QTextStream out(stdout);
    const QString sub = rawArgs.value(0);
    static const QStringList kSubcommands{"ls", "create", "install", "uninstall", "show", "rm"};
    if (!kSubcommands.contains(sub))
        return usage(sub.isEmpty() ? QStringLiteral("give a subcommand")
                                   : QStringLiteral("unknown subcommand \"%1\"").arg(sub));
    ParsedArgs parsed;
    if (!parseCommandArgs(qPrintable(QStringLiteral("env ") + sub), rawArgs.mid(1), optionsOf(sub),
                          kUsage, &parsed))
        return kExitUsage;
    const bool takesPackages = sub == QLatin1String("install") || sub == QLatin1String("uninstall");
    if (parsed.dashDash && !takesPackages)
        return usage(QStringLiteral("unexpected \"--\""));
    // Package specs after `--` may start with '-' (the agent judges them: invalid_packages).
    QStringList args = parsed.positional + parsed.rest;
    const bool json = parsed.has(QStringLiteral("--json"));
    const bool noWait = parsed.has(QStringLiteral("--no-wait"));
    if (sub == QLatin1String("ls") && args.isEmpty()) {
        const ApiResponse r = client.call("GET", "/v1/environments");
        if (!r.ok())
            return refused("ls", r);
        if (json) {
            out << r.body;
            return 0;
        }
        out << "NAME\tID\tSTATUS\tCURRENT REVISION\n";
        for (const QJsonValue& v : r.json().value(QLatin1String("environments")).toArray())
            out << line(v.toObject()) << '\n';
        return 0;
    }
    if (sub == QLatin1String("create")) {
        const bool python = parsed.has(QStringLiteral("--python"));
        const bool rLanguage = parsed.has(QStringLiteral("--r"));
        const QString provisioner = parsed.value(QStringLiteral("--provisioner"));
        if (args.size() != 1 || python == rLanguage)
            return usage(QStringLiteral("create NAME --python|--r"));
        QJsonObject body{{"name", args.first()}, {"language", python ? "python" : "r"}};
        if (!provisioner.isEmpty())
            body.insert(QStringLiteral("provisioner"), provisioner);
        const ApiResponse r = client.call("POST", "/v1/environments", body);
        if (r.status != 201)
            return refused("create", r);
        out << r.json().value("id").toString() << Qt::endl;
        return noWait ? 0 : followBuild(client, r.json().value("executionId").toString());
    }
    if (args.isEmpty())
        return usage(QStringLiteral("%1 needs an environment name").arg(sub));
    QString error;
    int exitCode = kExitApiError;
    const QString id = resolveEnvironmentId(client, args.takeFirst(), &error, &exitCode);
    if (id.isEmpty()) {
        QTextStream(stderr) << "runbox env " << sub << ": " << error << Qt::endl;
        return exitCode;
    }
    const QByteArray path = "/v1/environments/" + id.toUtf8();
    const QStringList wheels = parsed.values(QStringLiteral("--wheel"));
    if ((sub == QLatin1String("install") || sub == QLatin1String("uninstall")) &&
        (!args.isEmpty() || !wheels.isEmpty())) {
        QJsonObject body;
        if (!args.isEmpty())
            body.insert(QStringLiteral("packages"), QJsonArray::fromStringList(args));
        if (const QStringList channels = parsed.values(QStringLiteral("--channel"));
            !channels.isEmpty())
            body.insert(QStringLiteral("channels"), QJsonArray::fromStringList(channels));
        if (const QStringList index = parsed.values(QStringLiteral("--index-url"));
            index.size() > 1)
            return usage(QStringLiteral("--index-url is given once"));
        else if (!index.isEmpty())
            body.insert(QStringLiteral("indexUrl"), index.first());
        // Wheels uploaded into one workspace: WS:PATH each (as `runbox cp` names files).
        QJsonArray wheelPaths;
        for (const QString& wheel : wheels) {
            const qsizetype colon = wheel.indexOf(QLatin1Char(':'));
            const QString workspace = wheel.left(colon);
            if (colon <= 0 || colon == wheel.size() - 1 ||
                (body.contains(QLatin1String("workspace")) &&
                 body.value(QLatin1String("workspace")).toString() != workspace))
                return usage(QStringLiteral("--wheel wants WS:PATH, every wheel in one workspace"));
            body.insert(QStringLiteral("workspace"), workspace);
            wheelPaths.append(wheel.mid(colon + 1));
        }
        if (!wheelPaths.isEmpty())
            body.insert(QStringLiteral("wheels"), wheelPaths);
        const ApiResponse r = client.call("POST", path + '/' + sub.toUtf8(), body);
        if (r.status != 202)
            return refused(sub == QLatin1String("install") ? "install" : "uninstall", r);
        out << r.json().value("revisionId").toString() << Qt::endl;
        return noWait ? 0 : followBuild(client, r.json().value("executionId").toString());
    }
    if (sub == QLatin1String("show") && args.isEmpty()) {
        const ApiResponse env = client.call("GET", path);
        const ApiResponse revisions = client.call("GET", path + "/revisions");
        if (!env.ok())
            return refused("show", env);
        if (!revisions.ok())
            return refused("show", revisions);
        const QString current = env.json().value("currentRevisionId").toString();
        const ApiResponse snapshot =
            current.isEmpty()
                ? ApiResponse{}
                : client.call("GET", "/v1/environment-revisions/" + current.toUtf8() + "/snapshot");
        if (json) {
            QJsonObject all = env.json();
            all.insert("revisions", revisions.json().value("revisions"));
            all.insert("snapshot", snapshot.json());
            out << QJsonDocument(all).toJson(QJsonDocument::Indented);
            return 0;
        }
        out << line(env.json()) << '\n';
        if (env.json().contains("lastBuildFailure"))
            out << "last build failed: " << env.json().value("lastBuildFailure").toString() << '\n';
        for (const QJsonValue& v : revisions.json().value("revisions").toArray()) {
            const QJsonObject r = v.toObject();
            QStringList packages;
            for (const QJsonValue& p : r.value("spec").toObject().value("packages").toArray())
                packages << p.toString();
            out << "  revision " << r.value("seq").toInt() << ' ' << r.value("id").toString() << ' '
                << r.value("status").toString() << "  " << packages.join(' ') << '\n';
        }
        for (const QJsonValue& v : snapshot.json().value("packages").toArray())
            out << "    " << v["name"].toString() << ' ' << v["version"].toString() << '\n';
        return 0;
    }
    if (sub == QLatin1String("rm") && args.isEmpty()) {
        const ApiResponse r = client.call("DELETE", path);
        return r.ok() ? 0 : refused("rm", r);
    }
    return usage(QStringLiteral("unknown or incomplete command \"%1\"").arg(sub));
}

} // namespace runbox::cli
