#include "console/api/QuotaValues.h"

#include "console/api/HealthReport.h"

#include <QDateTime>
#include <QJsonArray>
#include <QLocale>

#include <cmath>

namespace runbox::console {

namespace {
constexpr qint64 kPiB = qint64(1) << 50;
constexpr qint64 kYearMs = qint64(365) * 24 * 3600 * 1000;

// The agent accepts at most 2^53 (exact in a JSON double).
constexpr qint64 kMaxExact = qint64(1) << 53;

QString valueText(const QString& name, const QJsonValue& v) {
    if (!v.isDouble())
        return v.isNull() || v.isUndefined()
                   ? QCoreApplication::translate("runbox::console::QuotaValues", "(unset)")
                   : v.toVariant().toString();
    const qint64 n = qint64(v.toDouble());
    if (n == 0)
        return QCoreApplication::translate("runbox::console::QuotaValues", "unlimited");
    switch (QuotaValues::field(name).unit) {
    case QuotaField::Unit::Bytes:
        return formatBytes(n);
    case QuotaField::Unit::Milliseconds:
        return formatDurationMs(n);
    case QuotaField::Unit::Millicores:
        return QCoreApplication::translate("runbox::console::QuotaValues", "%1 cores")
            .arg(QLocale().toString(double(n) / 1000.0, 'g', 7));
    case QuotaField::Unit::Count:
        break;
    }
    return QLocale().toString(n);
}
} // namespace

QString QuotaField::label() const {
    static const QMap<QString, const char*> labels{
        {QStringLiteral("maxWorkspaceBytes"),
         QT_TRANSLATE_NOOP("runbox::console::QuotaValues", "Workspace total")},
        {QStringLiteral("maxOutputBytes"),
         QT_TRANSLATE_NOOP("runbox::console::QuotaValues", "Retained output")},
        {QStringLiteral("uploadMaxFileBytes"),
         QT_TRANSLATE_NOOP("runbox::console::QuotaValues", "Upload per file")},
        {QStringLiteral("uploadMaxRequestBytes"),
         QT_TRANSLATE_NOOP("runbox::console::QuotaValues", "Upload per request")},
        {QStringLiteral("defaultExecutionTimeoutMs"),
         QT_TRANSLATE_NOOP("runbox::console::QuotaValues", "Default timeout")},
        {QStringLiteral("executionTimeoutMs"),
         QT_TRANSLATE_NOOP("runbox::console::QuotaValues", "Default timeout")},
        {QStringLiteral("maxExecutionTimeoutMs"),
         QT_TRANSLATE_NOOP("runbox::console::QuotaValues", "Maximum timeout")},
        {QStringLiteral("maxConcurrentExecutions"),
         QT_TRANSLATE_NOOP("runbox::console::QuotaValues", "Concurrent executions")},
        {QStringLiteral("maxLightWorkspaces"),
         QT_TRANSLATE_NOOP("runbox::console::QuotaValues", "Light workspaces")},
        {QStringLiteral("maxMemoryBytes"),
         QT_TRANSLATE_NOOP("runbox::console::QuotaValues", "Memory per execution")},
        {QStringLiteral("maxProcesses"),
         QT_TRANSLATE_NOOP("runbox::console::QuotaValues", "Processes per execution")},
        {QStringLiteral("maxCpuMillicores"),
         QT_TRANSLATE_NOOP("runbox::console::QuotaValues", "CPU per execution")},
    };
    const char* text = labels.value(name);
    return text ? QCoreApplication::translate("runbox::console::QuotaValues", text) : name;
}

QString QuotaField::help() const {
    static const QMap<QString, const char*> help{
        {QStringLiteral("maxWorkspaceBytes"),
         QT_TRANSLATE_NOOP("runbox::console::QuotaValues",
                           "Disk a workspace may use (allocated blocks); an execution that "
                           "grows past it ends as quota_exceeded.")},
        {QStringLiteral("maxOutputBytes"),
         QT_TRANSLATE_NOOP("runbox::console::QuotaValues",
                           "Output kept per execution: head and tail are kept around a marker, "
                           "the run never fails for it.")},
        {QStringLiteral("uploadMaxFileBytes"),
         QT_TRANSLATE_NOOP("runbox::console::QuotaValues",
                           "Largest single file accepted by the file API.")},
        {QStringLiteral("uploadMaxRequestBytes"),
         QT_TRANSLATE_NOOP("runbox::console::QuotaValues",
                           "Largest upload request accepted by the file API.")},
        {QStringLiteral("defaultExecutionTimeoutMs"),
         QT_TRANSLATE_NOOP("runbox::console::QuotaValues",
                           "Timeout of an execution that does not ask for one.")},
        {QStringLiteral("maxExecutionTimeoutMs"),
         QT_TRANSLATE_NOOP("runbox::console::QuotaValues",
                           "Longest timeout an execution may ask for.")},
        {QStringLiteral("maxConcurrentExecutions"),
         QT_TRANSLATE_NOOP("runbox::console::QuotaValues",
                           "Executions running at once on this host; later ones queue.")},
        {QStringLiteral("maxCpuMillicores"),
         QT_TRANSLATE_NOOP("runbox::console::QuotaValues",
                           "CPU time one execution may use per second, in cores (cgroup v2 "
                           "cpu.max). Only hosts that delegate the cpu controller enforce it; "
                           "elsewhere executions under a limit are refused.")},
    };
    const char* text = help.value(name);
    return text ? QCoreApplication::translate("runbox::console::QuotaValues", text) : QString();
}

double bytesToGib(qint64 bytes) {
    return double(bytes) / double(kBytesPerGiB);
}

qint64 gibToBytes(double gib) {
    return qint64(std::llround(gib * double(kBytesPerGiB)));
}

bool isExactInGib(qint64 bytes) {
    const double hundredths = double(bytes) * 100.0 / double(kBytesPerGiB);
    return gibToBytes(std::round(hundredths) / 100.0) == bytes;
}

const QList<QuotaField>& QuotaValues::knownFields() {
    using U = QuotaField::Unit;
    static const QList<QuotaField> fields{
        {QStringLiteral("maxWorkspaceBytes"), U::Bytes, kPiB},
        {QStringLiteral("maxOutputBytes"), U::Bytes, kPiB},
        {QStringLiteral("uploadMaxFileBytes"), U::Bytes, kPiB},
        {QStringLiteral("uploadMaxRequestBytes"), U::Bytes, kPiB},
        {QStringLiteral("defaultExecutionTimeoutMs"), U::Milliseconds, kYearMs},
        {QStringLiteral("executionTimeoutMs"), U::Milliseconds, kYearMs},
        {QStringLiteral("maxExecutionTimeoutMs"), U::Milliseconds, kYearMs},
        {QStringLiteral("maxConcurrentExecutions"), U::Count, 100000},
        {QStringLiteral("maxLightWorkspaces"), U::Count, 65536},
        {QStringLiteral("maxMemoryBytes"), U::Bytes, kPiB},
        {QStringLiteral("maxProcesses"), U::Count, 4194304},
        {QStringLiteral("maxCpuMillicores"), U::Millicores, 1000000},
    };
    return fields;
}

QuotaField QuotaValues::field(const QString& name) {
    for (const QuotaField& f : knownFields())
        if (f.name == name)
            return f;
    return QuotaField{name, QuotaField::Unit::Count, kMaxExact};
}

QuotaValues QuotaValues::fromJson(const QJsonObject& answer) {
    const QJsonObject source = answer.value(QLatin1String("quotas")).isObject()
                                   ? answer.value(QLatin1String("quotas")).toObject()
                                   : answer;
    QuotaValues out;
    for (auto it = source.begin(); it != source.end(); ++it)
        if (it.value().isDouble())
            out.m_values.insert(it.key(), qint64(it.value().toDouble()));
    return out;
}

QStringList QuotaValues::names() const {
    QStringList out;
    for (const QuotaField& f : knownFields())
        if (m_values.contains(f.name))
            out.append(f.name);
    for (auto it = m_values.begin(); it != m_values.end(); ++it)
        if (!out.contains(it.key()))
            out.append(it.key());
    return out;
}

QJsonObject QuotaValues::changesFrom(const QuotaValues& base) const {
    QJsonObject out;
    for (auto it = m_values.begin(); it != m_values.end(); ++it)
        if (!base.has(it.key()) || base.value(it.key()) != it.value())
            out.insert(it.key(), double(it.value()));
    return out;
}

QStringList QuotaValues::validate() const {
    QStringList problems;
    for (auto it = m_values.begin(); it != m_values.end(); ++it) {
        const QuotaField f = field(it.key());
        if (it.value() < 0)
            problems << tr("%1 cannot be negative.").arg(f.label());
        else if (it.value() > f.ceiling)
            problems << tr("%1 is above the largest value the agent accepts (%2).")
                            .arg(f.label(), valueText(f.name, double(f.ceiling)));
    }
    const QString def = has(QStringLiteral("defaultExecutionTimeoutMs"))
                            ? QStringLiteral("defaultExecutionTimeoutMs")
                            : QStringLiteral("executionTimeoutMs");
    const QString max = QStringLiteral("maxExecutionTimeoutMs");
    if (has(def) && has(max) && value(max) > 0 && (value(def) == 0 || value(def) > value(max)))
        problems << tr("The default timeout must be limited and no longer than the maximum "
                       "timeout.");
    return problems;
}

QString QuotaValues::lastChangeText(const QJsonObject& answer) {
    QJsonObject entry = answer.value(QLatin1String("lastChange")).toObject();
    if (entry.isEmpty())
        entry = answer.value(QLatin1String("audit")).toArray().first().toObject();
    if (entry.isEmpty())
        return {};
    QString key = entry.value(QLatin1String("key")).toString();
    if (key.startsWith(QLatin1String("quota.")))
        key = key.mid(6);
    const QDateTime at =
        QDateTime::fromString(entry.value(QLatin1String("at")).toString(), Qt::ISODateWithMs);
    const QString when = at.isValid() ? QLocale().toString(at.toLocalTime(), QLocale::ShortFormat)
                                      : entry.value(QLatin1String("at")).toString();
    return tr("%1: %2 → %3, by %4, %5")
        .arg(field(key).label(), valueText(key, entry.value(QLatin1String("before"))),
             valueText(key, entry.value(QLatin1String("after"))),
             entry.value(QLatin1String("tokenId")).toString(tr("unknown")), when);
}

} // namespace runbox::console
