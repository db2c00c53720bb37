#include "cli/NpuCommand.h"

#include "cli/CliOptions.h"
#include "cli/ExecutionsCommand.h"
#include "shared/ApiClient.h"

#include <QJsonArray>
#include <QTextStream>

namespace runbox::cli {

namespace {

/// `USED/TOTAL` in MB, or `-` when the inventory did not read them (null in the answer).
QString hbmText(const QJsonObject& chip) {
    const QJsonValue used = chip.value(QLatin1String("hbmUsedMb"));
    const QJsonValue total = chip.value(QLatin1String("hbmTotalMb"));
    if (!used.isDouble() || !total.isDouble())
        return QStringLiteral("-");
    return QStringLiteral("%1/%2").arg(used.toInteger()).arg(total.toInteger());
}

} // namespace

int runNpu(ApiClient& client, const QStringList& args) {
    static const char kUsage[] = "runbox npu ls [--refresh] [--json]";
    if (args.value(0) != QLatin1String("ls"))
        return usageError("npu",
                          args.isEmpty()
                              ? QStringLiteral("give a subcommand")
                              : QStringLiteral("unknown subcommand \"%1\"").arg(args.first()),
                          kUsage);
    ParsedArgs parsed;
    if (!parseCommandArgs("npu ls", args.mid(1),
                          {{QStringLiteral("--json")}, {QStringLiteral("--refresh")}}, kUsage,
                          &parsed))
        return kExitUsage;
    if (!parsed.positional.isEmpty() || parsed.dashDash)
        return usageError("npu ls", QStringLiteral("takes no arguments"), kUsage);
    const ApiResponse r = client.call(
        "GET",
        parsed.has(QStringLiteral("--refresh")) ? "/v1/npu/chips?refresh=true" : "/v1/npu/chips",
        {}, 120000);
    if (!r.ok() || parsed.has(QStringLiteral("--json")))
        return printJsonResponse("npu ls", r);
    const QJsonObject inventory = r.json();
    QList<qint64> held;
    for (const QJsonValue& v : inventory.value(QLatin1String("held")).toArray())
        held << v.toInteger();
    QList<QStringList> rows{{QStringLiteral("LOGIC-ID"), QStringLiteral("NAME"),
                             QStringLiteral("HEALTH"), QStringLiteral("USABLE"),
                             QStringLiteral("HBM-MB"), QStringLiteral("HELD")}};
    for (const QJsonValue& v : inventory.value(QLatin1String("chips")).toArray()) {
        const QJsonObject c = v.toObject();
        const qint64 id = c.value(QLatin1String("logicId")).toInteger();
        const QJsonObject probe = c.value(QLatin1String("probe")).toObject();
        rows.append({QString::number(id), c.value(QLatin1String("name")).toString(),
                     c.value(QLatin1String("health")).toString(),
                     probe.value(QLatin1String("usable")).toBool() ? QStringLiteral("yes")
                                                                   : QStringLiteral("no"),
                     hbmText(c), held.contains(id) ? QStringLiteral("yes") : QStringLiteral("no")});
    }
    QTextStream(stdout) << formatTable(rows);
    const QString source = inventory.value(QLatin1String("source")).toString();
    QTextStream err(stderr);
    err << "source: " << source;
    if (const QString reason = inventory.value(QLatin1String("reason")).toString();
        !reason.isEmpty())
        err << " (" << reason << ')';
    err << Qt::endl;
    return kExitOk;
}

} // namespace runbox::cli
