#include "cli/FilesCommand.h"

#include "cli/CliOptions.h"
#include "cli/CopyCommand.h"
#include "cli/ExecutionsCommand.h"
#include "shared/ApiClient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>
#include <QUrl>

namespace runbox::cli {

namespace {

const char kUsage[] = "runbox files ls [--json] WS:PATH | stat [--json] WS:PATH | "
                      "rm [-r] WS:PATH... | mv [--overwrite] [-p] WS:FROM [WS:]TO | "
                      "mkdir [-p] [--json] WS:PATH...";
const OptionSpec kJson{QStringLiteral("--json")};
const OptionSpec kParents{QStringLiteral("--parents"), false, QStringLiteral("-p")};

/// The WS:PATH arguments of @p parsed (positionals, then those after `--`); false after a usage
/// error (none given, more than @p max when max > 0, or a local name).
bool remotePaths(const char* command, const ParsedArgs& parsed, int max, QList<RemotePath>* out) {
    const QStringList args = parsed.positional + parsed.rest;
    if (args.isEmpty() || (max > 0 && args.size() > max)) {
        usageError(command,
                   max == 1 ? QStringLiteral("give one WS:PATH")
                            : QStringLiteral("give at least one WS:PATH"),
                   kUsage);
        return false;
    }
    for (const QString& arg : args) {
        RemotePath p;
        if (!RemotePath::parse(arg, &p)) {
            usageError(command, QStringLiteral("\"%1\" is not WS:PATH").arg(arg), kUsage);
            return false;
        }
        if (const QString problem = p.problem(); !problem.isEmpty()) {
            usageError(command, problem, kUsage);
            return false;
        }
        out->append(p);
    }
    return true;
}

QByteArray workspaceRoute(const RemotePath& p, const char* verb) {
    return "/v1/workspaces/" + QUrl::toPercentEncoding(p.workspaceId) + "/files:" + verb;
}

QString pathOf(const RemotePath& p) {
    QString path = p.path;
    while (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    return path;
}

QStringList rowOf(const QJsonObject& e) {
    QString name = e.value(QLatin1String("name")).toString();
    if (e.value(QLatin1String("type")).toString() == QLatin1String("symlink"))
        name += QStringLiteral(" -> ") + e.value(QLatin1String("target")).toString();
    return {e.value(QLatin1String("type")).toString(), e.value(QLatin1String("mode")).toString(),
            QString::number(e.value(QLatin1String("size")).toInteger()),
            e.value(QLatin1String("mtime")).toString(), name};
}

ApiResponse statOf(ApiClient& client, const RemotePath& p) {
    RemotePath bare = p;
    bare.path = pathOf(p);
    return client.call("GET", bare.apiPath() + "?stat=true");
}

int list(ApiClient& client, const QStringList& args) {
    ParsedArgs parsed;
    QList<RemotePath> paths;
    if (!parseCommandArgs("files ls", args, {kJson}, kUsage, &parsed))
        return kExitUsage;
    if (!remotePaths("files ls", parsed, 1, &paths))
        return kExitUsage;
    const bool json = parsed.has(QStringLiteral("--json"));
    // stat first: a GET of a file would be its bytes.
    const ApiResponse stat = statOf(client, paths.first());
    if (!stat.ok())
        return reportFailure("files ls", stat);
    const QJsonObject entry = stat.json();
    QTextStream out(stdout);
    if (entry.value(QLatin1String("type")).toString() != QLatin1String("directory")) {
        if (json)
            out << QJsonDocument(entry).toJson(QJsonDocument::Indented);
        else
            out << formatTable({rowOf(entry)});
        return kExitOk;
    }
    RemotePath dir = paths.first();
    dir.path = pathOf(dir);
    QJsonArray entries;
    qint64 offset = 0;
    for (;;) {
        const ApiResponse page = client.call(
            "GET", dir.apiPath() + "?offset=" + QByteArray::number(offset) + "&limit=1000");
        if (!page.ok())
            return reportFailure("files ls", page);
        const QJsonObject listing = page.json();
        for (const QJsonValue& v : listing.value(QLatin1String("entries")).toArray())
            entries.append(v);
        const QJsonValue next = listing.value(QLatin1String("nextOffset"));
        if (!next.isDouble() || next.toInteger() <= offset)
            break;
        offset = next.toInteger();
    }
    if (json) {
        out << QJsonDocument(
                   QJsonObject{{"path", dir.path}, {"entries", entries}, {"total", entries.size()}})
                   .toJson(QJsonDocument::Indented);
        return kExitOk;
    }
    QList<QStringList> rows;
    for (const QJsonValue& v : entries)
        rows.append(rowOf(v.toObject()));
    out << formatTable(rows);
    return kExitOk;
}

int stat(ApiClient& client, const QStringList& args) {
    ParsedArgs parsed;
    QList<RemotePath> paths;
    if (!parseCommandArgs("files stat", args, {kJson}, kUsage, &parsed))
        return kExitUsage;
    if (!remotePaths("files stat", parsed, 1, &paths))
        return kExitUsage;
    const ApiResponse r = statOf(client, paths.first());
    if (!r.ok() || parsed.has(QStringLiteral("--json")))
        return printJsonResponse("files stat", r);
    const QJsonObject e = r.json();
    QTextStream out(stdout);
    for (const char* key :
         {"path", "type", "size", "allocatedBytes", "mode", "mtime", "linkTarget"}) {
        const QJsonValue v = e.value(QLatin1String(key));
        if (v.isUndefined())
            continue;
        out << key << ": " << (v.isDouble() ? QString::number(v.toInteger()) : v.toString())
            << '\n';
    }
    return kExitOk;
}

int remove(ApiClient& client, const QStringList& args) {
    ParsedArgs parsed;
    QList<RemotePath> paths;
    if (!parseCommandArgs("files rm", args,
                          {{QStringLiteral("--recursive"), false, QStringLiteral("-r")}}, kUsage,
                          &parsed))
        return kExitUsage;
    if (!remotePaths("files rm", parsed, 0, &paths))
        return kExitUsage;
    int status = kExitOk;
    for (RemotePath p : paths) {
        p.path = pathOf(p);
        const ApiResponse r =
            client.call("DELETE", p.apiPath() + (parsed.has(QStringLiteral("--recursive"))
                                                     ? QByteArray("?recursive=true")
                                                     : QByteArray()));
        if (!r.ok() && status == kExitOk)
            status = reportFailure("files rm", r);
        else if (!r.ok())
            reportFailure("files rm", r);
    }
    return status;
}

int move(ApiClient& client, const QStringList& args) {
    ParsedArgs parsed;
    if (!parseCommandArgs("files mv", args, {{QStringLiteral("--overwrite")}, kParents}, kUsage,
                          &parsed))
        return kExitUsage;
    const QStringList names = parsed.positional + parsed.rest;
    RemotePath from, to;
    if (names.size() != 2 || !RemotePath::parse(names.at(0), &from))
        return usageError("files mv", QStringLiteral("give WS:FROM and [WS:]TO"), kUsage);
    if (!RemotePath::parse(names.at(1), &to))
        RemotePath::parse(from.workspaceId + u':' + names.at(1), &to); // the same workspace
    for (const RemotePath* p : {&from, &to})
        if (const QString problem = p->problem(); !problem.isEmpty())
            return usageError("files mv", problem, kUsage);
    if (to.workspaceId != from.workspaceId)
        return usageError("files mv", QStringLiteral("both paths must be in one workspace"),
                          kUsage);
    const ApiResponse r = client.call("POST", workspaceRoute(from, "move"),
                                      {{"from", pathOf(from)},
                                       {"to", pathOf(to)},
                                       {"overwrite", parsed.has(QStringLiteral("--overwrite"))},
                                       {"parents", parsed.has(QStringLiteral("--parents"))}});
    return r.ok() ? kExitOk : reportFailure("files mv", r);
}

int makeDirectory(ApiClient& client, const QStringList& args) {
    ParsedArgs parsed;
    QList<RemotePath> paths;
    if (!parseCommandArgs("files mkdir", args, {kJson, kParents}, kUsage, &parsed))
        return kExitUsage;
    if (!remotePaths("files mkdir", parsed, 0, &paths))
        return kExitUsage;
    int status = kExitOk;
    QTextStream out(stdout);
    for (const RemotePath& p : paths) {
        const ApiResponse r = client.call(
            "POST", workspaceRoute(p, "mkdir"),
            {{"path", pathOf(p)}, {"parents", parsed.has(QStringLiteral("--parents"))}});
        if (!r.ok()) {
            const int failed = reportFailure("files mkdir", r);
            status = status == kExitOk ? failed : status;
            continue;
        }
        if (parsed.has(QStringLiteral("--json")))
            out << QJsonDocument(r.json()).toJson(QJsonDocument::Compact) << '\n';
        else
            out << p.workspaceId << ':' << r.json().value(QLatin1String("path")).toString() << '\n';
    }
    return status;
}

} // namespace

int runFiles(ApiClient& client, const QStringList& args) {
    const QString sub = args.value(0);
    const QStringList rest = args.mid(1);
    if (sub == QLatin1String("ls"))
        return list(client, rest);
    if (sub == QLatin1String("stat"))
        return stat(client, rest);
    if (sub == QLatin1String("rm"))
        return remove(client, rest);
    if (sub == QLatin1String("mv"))
        return move(client, rest);
    if (sub == QLatin1String("mkdir"))
        return makeDirectory(client, rest);
    return usageError("files",
                      sub.isEmpty() ? QStringLiteral("give a subcommand")
                                    : QStringLiteral("unknown subcommand \"%1\"").arg(sub),
                      kUsage);
}

} // namespace runbox::cli
