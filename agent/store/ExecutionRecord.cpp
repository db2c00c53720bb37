#include "agent/store/ExecutionRecord.h"

#include <QDateTime>
#include <QJsonArray>
#include <QRegularExpression>

namespace runbox::store {

namespace {

QJsonValue optionalValue(const std::optional<qint64>& value) {
    return value ? QJsonValue(*value) : QJsonValue(QJsonValue::Null);
}

QJsonValue optionalValue(const std::optional<int>& value) {
    return value ? QJsonValue(*value) : QJsonValue(QJsonValue::Null);
}

QJsonValue optionalTime(const std::optional<qint64>& ms) {
    return ms ? QJsonValue(isoTimestamp(*ms)) : QJsonValue(QJsonValue::Null);
}

} // namespace

QString toString(ExecutionKind kind) {
    switch (kind) {
    case ExecutionKind::Shell:
        return QStringLiteral("shell");
    case ExecutionKind::Python:
        return QStringLiteral("python");
    case ExecutionKind::R:
        return QStringLiteral("r");
    case ExecutionKind::Argv:
        return QStringLiteral("argv");
    case ExecutionKind::Broker:
        return QStringLiteral("broker");
    case ExecutionKind::Provision:
        return QStringLiteral("provision");
    }
    return QString();
}

std::optional<ExecutionKind> executionKindFromString(const QString& name) {
    for (const ExecutionKind kind :
         {ExecutionKind::Shell, ExecutionKind::Python, ExecutionKind::R, ExecutionKind::Argv,
          ExecutionKind::Broker, ExecutionKind::Provision}) {
        if (toString(kind) == name)
            return kind;
    }
    return std::nullopt;
}

bool isValidExecutionId(const QString& id) {
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9_.:-]*$"));
    return !id.isEmpty() && id.size() <= 128 && pattern.match(id).hasMatch();
}

QString isoTimestamp(qint64 msSinceEpoch) {
    return QDateTime::fromMSecsSinceEpoch(msSinceEpoch, Qt::UTC).toString(Qt::ISODateWithMs);
}

QJsonObject LogByteCounts::toJson() const {
    return QJsonObject{
        {QStringLiteral("stdout"), stdoutBytes},
        {QStringLiteral("stderr"), stderrBytes},
        {QStringLiteral("dropped"), droppedBytes},
        {QStringLiteral("retentionTruncated"), droppedBytes > 0},
    };
}

QJsonObject ExecutionRecord::toJson() const {
    return QJsonObject{
        {QStringLiteral("executionId"), executionId},
        {QStringLiteral("workspace"), workspaceId},
        {QStringLiteral("kind"), toString(kind)},
        {QStringLiteral("state"), toString(state)},
        {QStringLiteral("queuePosition"), optionalValue(queuePosition)},
        {QStringLiteral("createdAt"), isoTimestamp(createdMs)},
        {QStringLiteral("startedAt"), optionalTime(startedMs)},
        {QStringLiteral("finishedAt"), optionalTime(finishedMs)},
        {QStringLiteral("exitCode"), optionalValue(exitCode)},
        {QStringLiteral("signal"), optionalValue(signal)},
        {QStringLiteral("durationMs"), optionalValue(durationMs)},
        {QStringLiteral("statusReason"), statusReason},
        {QStringLiteral("permissionEpoch"), permissionEpoch},
        {QStringLiteral("provenance"), provenance},
        {QStringLiteral("createdFiles"), QJsonArray::fromStringList(createdFiles)},
        {QStringLiteral("modifiedFiles"), QJsonArray::fromStringList(modifiedFiles)},
        {QStringLiteral("deletedFiles"), QJsonArray::fromStringList(deletedFiles)},
        {QStringLiteral("logBytes"), logBytes.toJson()},
        {QStringLiteral("usage"), usage.toJson()},
    };
}

QJsonObject ExecutionUsage::toJson() const {
    return QJsonObject{
        {QStringLiteral("peakMemoryBytes"), optionalValue(peakMemoryBytes)},
        {QStringLiteral("cpuUserMs"), optionalValue(cpuUserMs)},
        {QStringLiteral("cpuSystemMs"), optionalValue(cpuSystemMs)},
        {QStringLiteral("maxProcesses"), optionalValue(peakProcesses)},
    };
}

} // namespace runbox::store
