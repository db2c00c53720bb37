#include "agent/store/QuotaSettings.h"

#include <QJsonDocument>

#include <unistd.h>

namespace runbox::store {

namespace {

constexpr qint64 kMaxBytes = qint64(1) << 50;                    // 1 PiB
constexpr qint64 kMaxTimeoutMs = qint64(365) * 24 * 3600 * 1000; // 365 days
constexpr qint64 kMaxExactJsonInteger = qint64(1) << 53;
constexpr qint64 kPidMaxLimit = qint64(1) << 22;  // PID_MAX_LIMIT on 64-bit (proc(5) pid_max)
constexpr qint64 kMaxCpuMillicores = 1000 * 1000; // 1000 cores

Error invalidQuota(const QString& message) {
    return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_quota"), message};
}

/// What a JSON value looks like, for error messages (truncated).
QString describe(const QJsonValue& value) {
    switch (value.type()) {
    case QJsonValue::String:
        return QLatin1Char('"') + value.toString().left(40) + QLatin1Char('"');
    case QJsonValue::Bool:
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Double:
        return QString::number(value.toDouble(), 'g', 17);
    default:
        return QStringLiteral("a JSON %1")
            .arg(value.isArray() ? QStringLiteral("array") : QStringLiteral("object"));
    }
}

QString rangeText(qint64 ceiling) {
    return QStringLiteral("a whole number from 0 (unlimited) to %1").arg(ceiling);
}

/// Parses one JSON value as a field value in [0, ceiling].
std::optional<Error> parseValue(const QString& name, const QJsonValue& value, qint64 ceiling,
                                qint64* out) {
    const qint64 parsed = value.isDouble() ? value.toInteger(-1) : -1;
    if (parsed < 0 || parsed > kMaxExactJsonInteger || parsed > ceiling)
        return invalidQuota(
            QStringLiteral("%1 must be %2; got %3").arg(name, rangeText(ceiling), describe(value)));
    *out = parsed;
    return std::nullopt;
}

} // namespace

const QList<QuotaSettings::Field>& QuotaSettings::fields() {
    static const QList<Field> list{
        {QStringLiteral("maxWorkspaceBytes"), QStringLiteral("RUNBOX_MAX_WORKSPACE_BYTES"),
         &QuotaSettings::maxWorkspaceBytes, kMaxBytes},
        {QStringLiteral("maxOutputBytes"), QStringLiteral("RUNBOX_MAX_OUTPUT_BYTES"),
         &QuotaSettings::maxOutputBytes, kMaxBytes},
        {QStringLiteral("uploadMaxFileBytes"), QStringLiteral("RUNBOX_UPLOAD_MAX_FILE_BYTES"),
         &QuotaSettings::uploadMaxFileBytes, kMaxBytes},
        {QStringLiteral("uploadMaxRequestBytes"), QStringLiteral("RUNBOX_UPLOAD_MAX_REQUEST_BYTES"),
         &QuotaSettings::uploadMaxRequestBytes, kMaxBytes},
        {QStringLiteral("defaultExecutionTimeoutMs"), QStringLiteral("RUNBOX_EXECUTION_TIMEOUT_MS"),
         &QuotaSettings::defaultExecutionTimeoutMs, kMaxTimeoutMs},
        {QStringLiteral("maxExecutionTimeoutMs"), QStringLiteral("RUNBOX_MAX_EXECUTION_TIMEOUT_MS"),
         &QuotaSettings::maxExecutionTimeoutMs, kMaxTimeoutMs},
        {QStringLiteral("maxConcurrentExecutions"),
         QStringLiteral("RUNBOX_MAX_CONCURRENT_EXECUTIONS"),
         &QuotaSettings::maxConcurrentExecutions, 100000},
        {QStringLiteral("maxLightWorkspaces"), QStringLiteral("RUNBOX_MAX_LIGHT_WORKSPACES"),
         &QuotaSettings::maxLightWorkspaces, 65536},
        {QStringLiteral("maxMemoryBytes"), QStringLiteral("RUNBOX_MAX_MEMORY_BYTES"),
         &QuotaSettings::maxMemoryBytes, kMaxBytes},
        {QStringLiteral("maxProcesses"), QStringLiteral("RUNBOX_MAX_PROCESSES"),
         &QuotaSettings::maxProcesses, kPidMaxLimit},
        {QStringLiteral("maxCpuMillicores"), QStringLiteral("RUNBOX_MAX_CPU_MILLICORES"),
         &QuotaSettings::maxCpuMillicores, kMaxCpuMillicores},
    };
    return list;
}

qint64 QuotaSettings::defaultMaxMemoryBytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long pageSize = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageSize <= 0)
        return 4 * kGiB;
    return qint64(pages) * pageSize / 2;
}

QJsonObject QuotaSettings::toJson() const {
    QJsonObject object;
    for (const Field& field : fields())
        object.insert(field.name, this->*field.member);
    return object;
}

std::optional<Error> QuotaSettings::fromJson(const QJsonObject& patch, const QuotaSettings& base,
                                             QuotaSettings* out) {
    for (auto it = patch.constBegin(); it != patch.constEnd(); ++it) {
        bool known = false;
        for (const Field& field : fields())
            known = known || field.name == it.key();
        if (!known)
            return invalidQuota(
                QStringLiteral("unknown quota field \"%1\"").arg(it.key().left(60)));
    }
    QuotaSettings result = base;
    for (const Field& field : fields()) {
        if (!patch.contains(field.name))
            continue;
        if (auto error = parseValue(field.name, patch.value(field.name), field.ceiling,
                                    &(result.*field.member)))
            return error;
    }
    if (auto error = result.validate())
        return error;
    *out = result;
    return std::nullopt;
}

std::optional<Error> QuotaSettings::fromSeeds(const Seeds& seeds, const QuotaSettings& base,
                                              QuotaSettings* out) {
    QuotaSettings result = base;
    for (auto it = seeds.constBegin(); it != seeds.constEnd(); ++it) {
        const Field* field = nullptr;
        for (const Field& f : fields())
            if (f.name == it.key())
                field = &f;
        if (!field)
            return invalidQuota(QStringLiteral("unknown quota field \"%1\"").arg(it.key()));
        if (it.value() < 0 || it.value() > field->ceiling)
            return invalidQuota(QStringLiteral("%1 must be %2; got %3")
                                    .arg(field->envVar, rangeText(field->ceiling))
                                    .arg(it.value()));
        result.*field->member = it.value();
    }
    if (auto error = result.validate())
        return error;
    *out = result;
    return std::nullopt;
}

std::optional<Error> QuotaSettings::validate() const {
    for (const Field& field : fields()) {
        const qint64 value = this->*field.member;
        if (value < 0 || value > field.ceiling)
            return invalidQuota(QStringLiteral("%1 must be %2; got %3")
                                    .arg(field.name, rangeText(field.ceiling))
                                    .arg(value));
    }
    if (maxExecutionTimeoutMs > 0 &&
        (defaultExecutionTimeoutMs == 0 || defaultExecutionTimeoutMs > maxExecutionTimeoutMs))
        return invalidQuota(QStringLiteral("defaultExecutionTimeoutMs must be 1..%1 "
                                           "(maxExecutionTimeoutMs); got %2")
                                .arg(maxExecutionTimeoutMs)
                                .arg(defaultExecutionTimeoutMs));
    return std::nullopt;
}

std::optional<Error> QuotaSettings::validateForHost(qint64 pidMax) const {
    if (pidMax <= 0 || maxConcurrentExecutions == 0 || maxProcesses == 0)
        return std::nullopt;
    if (maxConcurrentExecutions * maxProcesses > pidMax / 2)
        return invalidQuota(QStringLiteral("maxConcurrentExecutions × maxProcesses (%1 × %2 = %3) "
                                           "must stay at or below half of the kernel's pid_max "
                                           "%4; lower one of them")
                                .arg(maxConcurrentExecutions)
                                .arg(maxProcesses)
                                .arg(maxConcurrentExecutions * maxProcesses)
                                .arg(pidMax));
    return std::nullopt;
}

QJsonObject ExecutionLimits::toJson() const {
    return QJsonObject{{QStringLiteral("maxOutputBytes"), maxOutputBytes},
                       {QStringLiteral("maxWorkspaceBytes"), maxWorkspaceBytes},
                       {QStringLiteral("executionTimeoutMs"), executionTimeoutMs},
                       {QStringLiteral("maxMemoryBytes"), maxMemoryBytes},
                       {QStringLiteral("maxProcesses"), maxProcesses},
                       {QStringLiteral("maxCpuMillicores"), maxCpuMillicores}};
}

ExecutionLimits ExecutionLimits::fromJson(const QJsonObject& quotas) {
    const auto read = [&](const char* key) {
        return std::max<qint64>(0, quotas.value(QLatin1String(key)).toInteger(0));
    };
    ExecutionLimits limits;
    limits.maxOutputBytes = read("maxOutputBytes");
    limits.maxWorkspaceBytes = read("maxWorkspaceBytes");
    limits.executionTimeoutMs = read("executionTimeoutMs");
    limits.maxMemoryBytes = read("maxMemoryBytes");
    limits.maxProcesses = read("maxProcesses");
    limits.maxCpuMillicores = read("maxCpuMillicores");
    return limits;
}

std::optional<Error> tighten(const QuotaSettings& settings, const QJsonObject& request,
                             ExecutionLimits* out) {
    struct Override {
        QString name;
        qint64 limit;    ///< the setting it may only tighten (0 = unlimited)
        qint64 fallback; ///< the value when the request does not say
        qint64 ceiling;
        qint64 ExecutionLimits::*member;
    };
    const Override overrides[] = {
        {QStringLiteral("maxOutputBytes"), settings.maxOutputBytes, settings.maxOutputBytes,
         kMaxBytes, &ExecutionLimits::maxOutputBytes},
        {QStringLiteral("maxWorkspaceBytes"), settings.maxWorkspaceBytes,
         settings.maxWorkspaceBytes, kMaxBytes, &ExecutionLimits::maxWorkspaceBytes},
        {QStringLiteral("executionTimeoutMs"), settings.maxExecutionTimeoutMs,
         settings.defaultExecutionTimeoutMs, kMaxTimeoutMs, &ExecutionLimits::executionTimeoutMs},
        {QStringLiteral("maxMemoryBytes"), settings.maxMemoryBytes, settings.maxMemoryBytes,
         kMaxBytes, &ExecutionLimits::maxMemoryBytes},
        {QStringLiteral("maxProcesses"), settings.maxProcesses, settings.maxProcesses, kPidMaxLimit,
         &ExecutionLimits::maxProcesses},
        {QStringLiteral("maxCpuMillicores"), settings.maxCpuMillicores, settings.maxCpuMillicores,
         kMaxCpuMillicores, &ExecutionLimits::maxCpuMillicores},
    };
    ExecutionLimits limits;
    for (const Override& o : overrides) {
        qint64 value = o.fallback;
        if (request.contains(o.name)) {
            if (auto error = parseValue(o.name, request.value(o.name), o.ceiling, &value))
                return error;
            if (o.limit > 0 && (value == 0 || value > o.limit))
                return Error{ErrorKind::InvalidArgument,
                             QStringLiteral("quota_override_not_tighter"),
                             QStringLiteral("%1 may only tighten the agent's limit of %2; "
                                            "got %3")
                                 .arg(o.name)
                                 .arg(o.limit)
                                 .arg(value == 0 ? QStringLiteral("0 (unlimited)")
                                                 : QString::number(value))};
        }
        limits.*o.member = value;
    }
    *out = limits;
    return std::nullopt;
}

} // namespace runbox::store
