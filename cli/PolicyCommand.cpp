#include "cli/PolicyCommand.h"

#include "cli/CliOptions.h"
#include "shared/ApiClient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>

namespace runbox::cli {

namespace {

const char kUsage[] = "runbox policy show [--json] | set --allow DOMAIN... [--allow-private CIDR] "
                      "[--json] | off [--json]";
const char kRoute[] = "/v1/settings/network-policy";

int printPolicy(const char* command, const ApiResponse& r, bool json) {
    if (!r.ok() || json)
        return printJsonResponse(command, r);
    const QJsonObject p = r.json();
    QTextStream out(stdout);
    out << "mode: " << p.value(QLatin1String("mode")).toString() << '\n'
        << "revision: " << p.value(QLatin1String("revision")).toString() << '\n';
    for (const QJsonValue& v : p.value(QLatin1String("allowedDomains")).toArray())
        out << "allow: " << v.toString() << '\n';
    for (const QJsonValue& v : p.value(QLatin1String("allowPrivateCidrs")).toArray())
        out << "allow-private: " << v.toString() << '\n';
    return kExitOk;
}

} // namespace

int runPolicy(ApiClient& client, const QStringList& args) {
    const QString sub = args.value(0);
    const OptionSpec json{QStringLiteral("--json")};
    ParsedArgs parsed;
    if (sub == QLatin1String("show") || sub == QLatin1String("off")) {
        const QByteArray command = "policy " + sub.toUtf8();
        if (!parseCommandArgs(command.constData(), args.mid(1), {json}, kUsage, &parsed))
            return kExitUsage;
        if (!parsed.positional.isEmpty() || parsed.dashDash)
            return usageError(command.constData(), QStringLiteral("takes no arguments"), kUsage);
        const bool asJson = parsed.has(QStringLiteral("--json"));
        if (sub == QLatin1String("show"))
            return printPolicy("policy show", client.call("GET", kRoute), asJson);
        const QJsonObject none{{"mode", "none"},
                               {"allowedDomains", QJsonArray{}},
                               {"allowPrivateCidrs", QJsonArray{}}};
        return printPolicy("policy off", client.call("PUT", kRoute, none), asJson);
    }
    if (sub == QLatin1String("set")) {
        if (!parseCommandArgs("policy set", args.mid(1),
                              {json,
                               {QStringLiteral("--allow"), true},
                               {QStringLiteral("--allow-private"), true}},
                              kUsage, &parsed))
            return kExitUsage;
        if (!parsed.has(QStringLiteral("--allow")) || parsed.dashDash)
            return usageError("policy set",
                              QStringLiteral("give --allow DOMAIN (policy off: no network)"),
                              kUsage);
        const QStringList domains = parsed.values(QStringLiteral("--allow")) + parsed.positional;
        const QJsonObject policy{{"mode", "domain-allowlist"},
                                 {"allowedDomains", QJsonArray::fromStringList(domains)},
                                 {"allowPrivateCidrs", QJsonArray::fromStringList(parsed.values(
                                                           QStringLiteral("--allow-private")))}};
        return printPolicy("policy set", client.call("PUT", kRoute, policy),
                           parsed.has(QStringLiteral("--json")));
    }
    return usageError("policy",
                      sub.isEmpty() ? QStringLiteral("give a subcommand")
                                    : QStringLiteral("unknown subcommand \"%1\"").arg(sub),
                      kUsage);
}

} // namespace runbox::cli
