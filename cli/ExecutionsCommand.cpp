#include "cli/ExecutionsCommand.h"

#include "cli/CliOptions.h"
#include "cli/Units.h"
#include "shared/ApiClient.h"

#include <QDeadlineTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>
#include <QThread>
#include <QUrl>

#include <csignal>
#include <cstring>

namespace runbox::cli {

namespace {

constexpr int kCancelWaitMs = 60000;

bool isFinal(const QString& state) {
    return state != QLatin1String("queued") && state != QLatin1String("running");
}

int reportError(const char* command, const ApiResponse& r) {
    return reportFailure(command, r);
}

QString exitText(const QJsonObject& e) {
    const QJsonValue code = e.value(QLatin1String("exitCode"));
    if (code.isDouble())
        return QString::number(code.toInt());
    const int signal = e.value(QLatin1String("signal")).toInt(0);
    if (signal > 0 && signal < NSIG && sigabbrev_np(signal))
        return QStringLiteral("SIG") + QLatin1String(sigabbrev_np(signal));
    return QStringLiteral("-");
}

QStringList rowOf(const QJsonObject& e) {
    const QJsonValue queue = e.value(QLatin1String("queuePosition"));
    const QJsonValue duration = e.value(QLatin1String("durationMs"));
    QString created = e.value(QLatin1String("createdAt")).toString();
    created.replace(QLatin1Char('T'), QLatin1Char(' '));
    created = created.left(19); // seconds are enough in a table
    return {e.value(QLatin1String("executionId")).toString(),
            e.value(QLatin1String("workspace")).toString(),
            e.value(QLatin1String("kind")).toString(),
            e.value(QLatin1String("state")).toString(),
            queue.isDouble() ? QString::number(queue.toInt()) : QStringLiteral("-"),
            created,
            duration.isDouble() && duration.toInteger() > 0 ? formatDurationMs(duration.toInteger())
                                                            : QStringLiteral("-"),
            exitText(e)};
}

/// The usage columns of `ps -l`: peak memory, user and system CPU, most processes at once
/// (`usage` of the record; "-" where it was not measured).
QStringList usageColumnsOf(const QJsonObject& e) {
    const QJsonObject usage = e.value(QLatin1String("usage")).toObject();
    const auto number = [&](const char* key) { return usage.value(QLatin1String(key)); };
    const QJsonValue peak = number("peakMemoryBytes");
    const auto cpu = [&](const char* key) {
        const QJsonValue v = number(key);
        return v.isDouble() ? formatCpuMs(v.toInteger()) : QStringLiteral("-");
    };
    const QJsonValue processes = number("maxProcesses");
    return {peak.isDouble() ? formatBytesUsed(peak.toInteger()) : QStringLiteral("-"),
            cpu("cpuUserMs"), cpu("cpuSystemMs"),
            processes.isDouble() ? QString::number(processes.toInt()) : QStringLiteral("-")};
}

} // namespace

QString formatTable(const QList<QStringList>& rows) {
    QList<qsizetype> widths;
    for (const QStringList& row : rows)
        for (qsizetype i = 0; i < row.size(); ++i) {
            if (widths.size() <= i)
                widths.append(0);
            widths[i] = std::max(widths[i], row[i].size());
        }
    QString text;
    for (const QStringList& row : rows) {
        QString line;
        for (qsizetype i = 0; i < row.size(); ++i)
            line += i + 1 < row.size() ? row[i].leftJustified(widths[i] + 2) : row[i];
        text += line + QLatin1Char('\n');
    }
    return text;
}

int runPs(ApiClient& client, const QStringList& args) {
    static const char kUsage[] =
        "runbox ps [-l] [--workspace W] [--state S,S] [--limit N] [--cursor C] [--json]";
    QTextStream err(stderr);
    ParsedArgs parsed;
    if (!parseCommandArgs("ps", args,
                          {{QStringLiteral("--workspace"), true},
                           {QStringLiteral("--state"), true},
                           {QStringLiteral("--limit"), true},
                           {QStringLiteral("--cursor"), true},
                           {QStringLiteral("--json")},
                           {QStringLiteral("--long"), false, QStringLiteral("-l")}},
                          kUsage, &parsed))
        return kExitUsage;
    const QString workspace = parsed.value(QStringLiteral("--workspace"));
    const QString state = parsed.value(QStringLiteral("--state"));
    const QString limit = parsed.value(QStringLiteral("--limit"));
    const QString cursor = parsed.value(QStringLiteral("--cursor"));
    const bool json = parsed.has(QStringLiteral("--json"));
    const bool longFormat = parsed.has(QStringLiteral("--long"));
    if (!parsed.positional.isEmpty() || parsed.dashDash)
        return usageError("ps",
                          QStringLiteral("unexpected argument \"%1\"")
                              .arg(parsed.positional.isEmpty() ? QStringLiteral("--")
                                                               : parsed.positional.first()),
                          kUsage);
    bool limitOk = true;
    if (!limit.isEmpty() && (limit.toInt(&limitOk) < 1 || !limitOk))
        return usageError("ps", QStringLiteral("--limit takes a positive number"), kUsage);
    QByteArray path = "/v1/executions";
    char separator = '?';
    const auto add = [&](const char* name, const QString& value) {
        if (value.isEmpty())
            return;
        path += separator + QByteArray(name) + '=' + QUrl::toPercentEncoding(value, ",");
        separator = '&';
    };
    add("workspace", workspace);
    add("state", state);
    add("limit", limit);
    add("cursor", cursor);
    const ApiResponse r = client.call("GET", path);
    if (!r.ok())
        return reportError("ps", r);
    const QJsonObject page = r.json();
    if (json) {
        QTextStream(stdout) << QJsonDocument(page).toJson(QJsonDocument::Indented);
        return 0;
    }
    QList<QStringList> rows{{QStringLiteral("EXECUTION"), QStringLiteral("WORKSPACE"),
                             QStringLiteral("KIND"), QStringLiteral("STATE"),
                             QStringLiteral("QUEUE"), QStringLiteral("CREATED"),
                             QStringLiteral("DURATION"), QStringLiteral("EXIT")}};
    if (longFormat)
        rows.first() << QStringLiteral("PEAK-MEM") << QStringLiteral("CPU-USER")
                     << QStringLiteral("CPU-SYS") << QStringLiteral("PROCS");
    for (const QJsonValue& v : page.value(QLatin1String("executions")).toArray())
        rows.append(longFormat ? rowOf(v.toObject()) + usageColumnsOf(v.toObject())
                               : rowOf(v.toObject()));
    QTextStream(stdout) << formatTable(rows);
    const QString next = page.value(QLatin1String("nextCursor")).toString();
    if (!next.isEmpty())
        err << "more: runbox ps --cursor " << next << Qt::endl;
    return 0;
}

int runCancel(ApiClient& client, const QStringList& args) {
    static const char kUsage[] = "runbox cancel [--no-wait] [--json] ID";
    ParsedArgs parsed;
    if (!parseCommandArgs("cancel", args,
                          {{QStringLiteral("--json")}, {QStringLiteral("--no-wait")}}, kUsage,
                          &parsed))
        return kExitUsage;
    const bool json = parsed.has(QStringLiteral("--json"));
    const bool noWait = parsed.has(QStringLiteral("--no-wait"));
    if (parsed.positional.size() != 1 || parsed.dashDash)
        return usageError("cancel", QStringLiteral("give one execution id"), kUsage);
    const QByteArray path = "/v1/executions/" + QUrl::toPercentEncoding(parsed.positional.first());
    ApiResponse r = client.call("POST", path + "/cancel");
    if (!r.ok())
        return reportError("cancel", r);
    // A running execution becomes final once its process is gone: wait for that.
    QDeadlineTimer deadline(kCancelWaitMs);
    while (!noWait && !isFinal(r.json().value(QLatin1String("state")).toString()) &&
           !deadline.hasExpired()) {
        QThread::msleep(50);
        r = client.call("GET", path);
        if (!r.ok())
            return reportError("cancel", r);
    }
    const QJsonObject record = r.json();
    QTextStream out(stdout);
    if (json)
        out << QJsonDocument(record).toJson(QJsonDocument::Compact) << '\n';
    else
        out << record.value(QLatin1String("executionId")).toString() << ' '
            << record.value(QLatin1String("state")).toString() << '\n';
    return 0;
}

} // namespace runbox::cli
