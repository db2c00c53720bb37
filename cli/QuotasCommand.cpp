#include "cli/QuotasCommand.h"

#include "cli/CliOptions.h"
#include "cli/ExecutionsCommand.h"
#include "cli/Units.h"
#include "shared/ApiClient.h"

#include <QJsonDocument>
#include <QTextStream>

#include <cmath>
#include <optional>

namespace runbox::cli {

namespace {

enum class Unit { Bytes, DurationMs, Count, Millicores };

/// One quota as the CLI shows and sets it.
struct QuotaField {
    const char* field;  ///< JSON field of /v1/settings/quotas
    const char* option; ///< `quotas set` option
    Unit unit;
};

constexpr QuotaField kFields[] = {
    {"maxWorkspaceBytes", "--workspace", Unit::Bytes},
    {"maxOutputBytes", "--output", Unit::Bytes},
    {"uploadMaxFileBytes", "--upload-file", Unit::Bytes},
    {"uploadMaxRequestBytes", "--upload-request", Unit::Bytes},
    {"defaultExecutionTimeoutMs", "--timeout", Unit::DurationMs},
    {"maxExecutionTimeoutMs", "--max-timeout", Unit::DurationMs},
    {"maxConcurrentExecutions", "--concurrency", Unit::Count},
    {"maxLightWorkspaces", "--light-workspaces", Unit::Count},
    {"maxMemoryBytes", "--memory", Unit::Bytes},
    {"maxProcesses", "--processes", Unit::Count},
    {"maxCpuMillicores", "--cpus", Unit::Millicores},
};

QString formatValue(Unit unit, const QJsonValue& value) {
    if (!value.isDouble())
        return value.isString() ? value.toString() : QStringLiteral("-");
    const qint64 v = value.toInteger();
    switch (unit) {
    case Unit::Bytes:
        return formatGiB(v);
    case Unit::DurationMs:
        return formatDurationMs(v);
    case Unit::Count:
        return v == 0 ? QStringLiteral("unlimited") : QString::number(v);
    case Unit::Millicores:
        return v == 0 ? QStringLiteral("unlimited")
                      : QStringLiteral("%1 cores").arg(QString::number(double(v) / 1000.0, 'g', 7));
    }
    return {};
}

/// "1.5" (cores) or "unlimited" → millicores; a value below 0.001 core or with more than three
/// decimals is refused (the agent counts whole millicores).
std::optional<qint64> parseCores(const QString& text, QString* error) {
    if (text.trimmed().compare(QLatin1String("unlimited"), Qt::CaseInsensitive) == 0)
        return 0;
    bool ok = false;
    const double cores = text.trimmed().toDouble(&ok);
    const double millicores = cores * 1000.0;
    if (!ok || cores <= 0 || std::abs(millicores - std::round(millicores)) > 1e-6) {
        *error = QStringLiteral("\"%1\" is not a number of cores (e.g. 2 or 0.5, at most three "
                                "decimals, or unlimited)")
                     .arg(text.left(40));
        return std::nullopt;
    }
    return qint64(std::llround(millicores));
}

std::optional<qint64> parseCount(const QString& text, QString* error) {
    if (text.trimmed().compare(QLatin1String("unlimited"), Qt::CaseInsensitive) == 0)
        return 0;
    bool ok = false;
    const qint64 n = text.trimmed().toLongLong(&ok);
    if (!ok || n < 0) {
        *error = QStringLiteral("\"%1\" is not a count (a whole number or unlimited)")
                     .arg(text.left(40));
        return std::nullopt;
    }
    return n;
}

const QuotaField* fieldNamed(const QString& name) {
    for (const QuotaField& f : kFields)
        if (name == QLatin1String(f.field))
            return &f;
    return nullptr;
}

} // namespace

QString formatQuotas(const QJsonObject& body) {
    const QJsonObject quotas = body.value(QLatin1String("quotas")).toObject();
    QList<QStringList> rows{{QStringLiteral("QUOTA"), QStringLiteral("VALUE")}};
    for (const QuotaField& f : kFields)
        if (quotas.contains(QLatin1String(f.field)))
            rows.append({QLatin1String(f.field),
                         formatValue(f.unit, quotas.value(QLatin1String(f.field)))});
    for (auto it = quotas.begin(); it != quotas.end(); ++it) // fields this CLI does not know yet
        if (!fieldNamed(it.key()))
            rows.append({it.key(), QString::number(it.value().toInteger())});
    QString text = formatTable(rows);
    const QJsonObject last = body.value(QLatin1String("lastChange")).toObject();
    if (!last.isEmpty()) {
        QString key = last.value(QLatin1String("key")).toString();
        if (key.startsWith(QLatin1String("quota.")))
            key = key.mid(6);
        const QuotaField* f = fieldNamed(key);
        const Unit unit = f ? f->unit : Unit::Count;
        text += QStringLiteral("last change: %1 %2 -> %3 by %4 at %5\n")
                    .arg(key, formatValue(unit, last.value(QLatin1String("before"))),
                         formatValue(unit, last.value(QLatin1String("after"))),
                         last.value(QLatin1String("tokenId")).toString(),
                         last.value(QLatin1String("at")).toString());
    }
    return text;
}

QList<OptionSpec> quotaOptionSpecs() {
    QList<OptionSpec> specs{{QStringLiteral("--json")}};
    for (const QuotaField& f : kFields)
        specs.append({QLatin1String(f.option), true});
    return specs;
}

QString parseQuotaOptions(const ParsedArgs& args, QJsonObject* patch) {
    QString error;
    for (const QuotaField& f : kFields) {
        const QString text = args.value(QLatin1String(f.option));
        if (!args.has(QLatin1String(f.option)))
            continue;
        std::optional<qint64> value;
        switch (f.unit) {
        case Unit::Bytes:
            value = parseBytes(text, &error);
            break;
        case Unit::DurationMs:
            value = parseDurationMs(text, &error);
            break;
        case Unit::Count:
            value = parseCount(text, &error);
            break;
        case Unit::Millicores:
            value = parseCores(text, &error);
            break;
        }
        if (!value)
            return QStringLiteral("%1: %2").arg(QLatin1String(f.option), error);
        patch->insert(QLatin1String(f.field), *value);
    }
    if (!args.positional.isEmpty() || args.dashDash)
        return QStringLiteral("unexpected argument \"%1\"")
            .arg(args.positional.isEmpty() ? QStringLiteral("--") : args.positional.first());
    if (patch->isEmpty())
        return QStringLiteral("nothing to set: give at least one of --workspace, --output, "
                              "--upload-file, --upload-request, --timeout, --max-timeout, "
                              "--concurrency, --light-workspaces, --memory, --processes, --cpus");
    return {};
}

int runQuotas(ApiClient& client, const QStringList& args) {
    static const char kUsage[] = "runbox quotas [--json]  |  runbox quotas set [--workspace SIZE] "
                                 "[--output SIZE] … [--json]   (runbox --help)";
    const bool set = !args.isEmpty() && args.first() == QLatin1String("set");
    ParsedArgs parsed;
    if (!parseCommandArgs(set ? "quotas set" : "quotas", set ? args.mid(1) : args,
                          set ? quotaOptionSpecs() : QList<OptionSpec>{{QStringLiteral("--json")}},
                          kUsage, &parsed))
        return kExitUsage;
    const bool json = parsed.has(QStringLiteral("--json"));
    ApiResponse r;
    if (set) {
        QJsonObject patch;
        if (const QString error = parseQuotaOptions(parsed, &patch); !error.isEmpty())
            return usageError("quotas set", error, kUsage);
        r = client.call("PUT", "/v1/settings/quotas", patch);
    } else if (parsed.positional.isEmpty() && !parsed.dashDash) {
        r = client.call("GET", "/v1/settings/quotas");
    } else {
        return usageError("quotas",
                          QStringLiteral("unknown subcommand \"%1\"")
                              .arg(parsed.positional.value(0, QStringLiteral("--"))),
                          kUsage);
    }
    if (!r.ok())
        return reportFailure("quotas", r);
    QTextStream out(stdout);
    if (json)
        out << QJsonDocument(r.json()).toJson(QJsonDocument::Indented);
    else
        out << formatQuotas(r.json());
    return 0;
}

} // namespace runbox::cli
