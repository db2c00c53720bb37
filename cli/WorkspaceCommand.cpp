#include "cli/WorkspaceCommand.h"

#include "cli/CliOptions.h"
#include "cli/ExecutionsCommand.h"
#include "cli/Units.h"
#include "shared/ApiClient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>
#include <QUrl>

namespace runbox::cli {

namespace {

const char kUsage[] = "runbox workspace create [--light [--count N] [--environment ID | "
                      "--revision REV]] [--json] | "
                      "ls [--light|--strong] [--json] | rm ID... [--json] | usage ID... [--json]";
const OptionSpec kJson{QStringLiteral("--json")};

int create(ApiClient& client, const QStringList& args) {
    ParsedArgs parsed;
    if (!parseCommandArgs("workspace create", args,
                          {kJson,
                           {QStringLiteral("--light")},
                           {QStringLiteral("--count"), true},
                           {QStringLiteral("--environment"), true},
                           {QStringLiteral("--revision"), true}},
                          kUsage, &parsed))
        return kExitUsage;
    if (!parsed.positional.isEmpty() || parsed.dashDash)
        return usageError("workspace create",
                          QStringLiteral("unexpected argument \"%1\"")
                              .arg(parsed.positional.value(0, QStringLiteral("--"))),
                          kUsage);
    const bool light = parsed.has(QStringLiteral("--light"));
    QJsonObject body{{"isolation", light ? "light" : "strong"}};
    if (parsed.has(QStringLiteral("--count"))) {
        if (!light)
            return usageError("workspace create",
                              QStringLiteral("--count needs --light (strong workspaces are made "
                                             "one at a time)"),
                              kUsage);
        bool ok = false;
        const int count = parsed.value(QStringLiteral("--count")).toInt(&ok);
        if (!ok || count < 1)
            return usageError("workspace create",
                              QStringLiteral("--count takes a whole number >= 1"), kUsage);
        body.insert(QStringLiteral("count"), count);
    }
    // A light batch may be made with a science environment (docs/contracts.md, workspaces):
    // its current revision (--environment) or one revision (--revision), never both.
    const bool byEnvironment = parsed.has(QStringLiteral("--environment"));
    const bool byRevision = parsed.has(QStringLiteral("--revision"));
    if ((byEnvironment || byRevision) && !light)
        return usageError("workspace create",
                          QStringLiteral("--environment and --revision need --light (strong "
                                         "workspaces choose an environment per execution)"),
                          kUsage);
    if (byEnvironment && byRevision)
        return usageError("workspace create",
                          QStringLiteral("give --environment or --revision, not both"), kUsage);
    if (byEnvironment)
        body.insert(QStringLiteral("environmentId"), parsed.value(QStringLiteral("--environment")));
    if (byRevision)
        body.insert(QStringLiteral("environmentRevisionId"),
                    parsed.value(QStringLiteral("--revision")));
    const ApiResponse r = client.call("POST", "/v1/workspaces", body, 300000);
    if (!r.ok())
        return reportFailure("workspace create", r);
    const QJsonObject answer = r.json();
    QTextStream out(stdout);
    if (parsed.has(QStringLiteral("--json")))
        out << QJsonDocument(answer).toJson(QJsonDocument::Indented);
    else
        for (const QJsonValue& v : answer.value(QLatin1String("workspaces")).toArray())
            out << v[QLatin1String("id")].toString() << ' ' << v[QLatin1String("token")].toString()
                << '\n';
    out.flush();
    if (const int rejected = answer.value(QLatin1String("rejected")).toInt(); rejected > 0)
        QTextStream(stderr) << "runbox workspace create: " << rejected
                            << " not made: the light tier is at capacity" << Qt::endl;
    return kExitOk;
}

int list(ApiClient& client, const QStringList& args, const char* command) {
    ParsedArgs parsed;
    if (!parseCommandArgs(command, args,
                          {kJson, {QStringLiteral("--light")}, {QStringLiteral("--strong")}},
                          kUsage, &parsed))
        return kExitUsage;
    if (!parsed.positional.isEmpty() || parsed.dashDash)
        return usageError(command,
                          QStringLiteral("unexpected argument \"%1\"")
                              .arg(parsed.positional.value(0, QStringLiteral("--"))),
                          kUsage);
    const bool light = parsed.has(QStringLiteral("--light"));
    const bool strong = parsed.has(QStringLiteral("--strong"));
    if (light && strong)
        return usageError(command, QStringLiteral("give --light or --strong, not both"), kUsage);
    QByteArray path = "/v1/workspaces";
    if (light || strong)
        path += light ? "?isolation=light" : "?isolation=strong";
    const ApiResponse r = client.call("GET", path);
    if (!r.ok() || parsed.has(QStringLiteral("--json")))
        return printJsonResponse(command, r);
    QList<QStringList> rows{{QStringLiteral("ID"), QStringLiteral("ISOLATION"),
                             QStringLiteral("UID"), QStringLiteral("CREATED"),
                             QStringLiteral("EXECUTIONS"), QStringLiteral("LAST EXECUTION")}};
    const auto orDash = [](const QJsonValue& v) {
        return v.isDouble()   ? QString::number(qint64(v.toDouble()))
               : v.isString() ? v.toString()
                              : QStringLiteral("-");
    };
    for (const QJsonValue& v : r.json().value(QLatin1String("workspaces")).toArray()) {
        const QJsonObject w = v.toObject();
        rows.append({w.value(QLatin1String("id")).toString(),
                     w.value(QLatin1String("isolation")).toString(),
                     orDash(w.value(QLatin1String("uid"))),
                     w.value(QLatin1String("createdAt")).toString(),
                     orDash(w.value(QLatin1String("recordedExecutions"))),
                     orDash(w.value(QLatin1String("lastExecutionAt")))});
    }
    QTextStream(stdout) << formatTable(rows);
    return kExitOk;
}

int remove(ApiClient& client, const QStringList& args) {
    ParsedArgs parsed;
    if (!parseCommandArgs("workspace rm", args, {kJson}, kUsage, &parsed))
        return kExitUsage;
    const QStringList ids = parsed.positional + parsed.rest;
    if (ids.isEmpty())
        return usageError("workspace rm", QStringLiteral("give at least one workspace id"), kUsage);
    int status = kExitOk;
    QJsonArray deleted;
    for (const QString& id : ids) {
        const ApiResponse r =
            client.call("DELETE", "/v1/workspaces/" + QUrl::toPercentEncoding(id), {}, 300000);
        if (!r.ok()) {
            const int failed = reportFailure("workspace rm", r);
            if (status == kExitOk)
                status = failed;
            continue;
        }
        deleted.append(id);
        if (!parsed.has(QStringLiteral("--json")))
            QTextStream(stdout) << id << '\n';
    }
    if (parsed.has(QStringLiteral("--json")))
        QTextStream(stdout)
            << QJsonDocument(QJsonObject{{"deleted", deleted}}).toJson(QJsonDocument::Indented);
    return status;
}

/// `workspace usage ID...`: each workspace's disk usage as the quota counts it
/// (`GET /v1/workspaces/{id}/usage`, docs/contracts.md "Workspaces and executions").
int usage(ApiClient& client, const QStringList& args) {
    ParsedArgs parsed;
    if (!parseCommandArgs("workspace usage", args, {kJson}, kUsage, &parsed))
        return kExitUsage;
    const QStringList ids = parsed.positional + parsed.rest;
    if (ids.isEmpty())
        return usageError("workspace usage", QStringLiteral("give at least one workspace id"),
                          kUsage);
    int status = kExitOk;
    QJsonArray measured;
    QList<QStringList> rows{{QStringLiteral("ID"), QStringLiteral("ALLOCATED"),
                             QStringLiteral("APPARENT"), QStringLiteral("ENTRIES"),
                             QStringLiteral("QUOTA")}};
    for (const QString& id : ids) {
        const ApiResponse r = client.call(
            "GET", "/v1/workspaces/" + QUrl::toPercentEncoding(id) + "/usage", {}, 300000);
        if (!r.ok()) {
            const int failed = reportFailure("workspace usage", r);
            if (status == kExitOk)
                status = failed;
            continue;
        }
        QJsonObject u = r.json();
        const bool complete = u.value(QLatin1String("complete")).toBool(true);
        const auto bytes = [&](const char* key) {
            return (complete ? QString() : QStringLiteral(">=")) +
                   formatBytesUsed(qint64(u.value(QLatin1String(key)).toDouble()));
        };
        const qint64 quota = qint64(u.value(QLatin1String("maxWorkspaceBytes")).toDouble());
        rows.append({id, bytes("allocatedBytes"), bytes("apparentBytes"),
                     QString::number(qint64(u.value(QLatin1String("entries")).toDouble())),
                     quota > 0 ? formatBytesUsed(quota) : QStringLiteral("unlimited")});
        u.insert(QStringLiteral("id"), id);
        measured.append(u);
    }
    if (parsed.has(QStringLiteral("--json")))
        QTextStream(stdout)
            << QJsonDocument(QJsonObject{{"workspaces", measured}}).toJson(QJsonDocument::Indented);
    else if (rows.size() > 1)
        QTextStream(stdout) << formatTable(rows);
    return status;
}

} // namespace

int runWorkspace(ApiClient& client, const QStringList& args) {
    const QString sub = args.value(0);
    if (sub == QLatin1String("create"))
        return create(client, args.mid(1));
    if (sub == QLatin1String("ls") || sub == QLatin1String("list"))
        return list(client, args.mid(1), "workspace ls");
    if (sub == QLatin1String("rm") || sub == QLatin1String("delete"))
        return remove(client, args.mid(1));
    if (sub == QLatin1String("usage"))
        return usage(client, args.mid(1));
    return usageError("workspace",
                      sub.isEmpty() ? QStringLiteral("give a subcommand")
                                    : QStringLiteral("unknown subcommand \"%1\"").arg(sub),
                      kUsage);
}

int runWorkspacesAlias(ApiClient& client, const QStringList& args) {
    return list(client, args, "workspaces");
}

} // namespace runbox::cli
