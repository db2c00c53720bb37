#include "console/api/ExecutionInfo.h"

#include <QJsonArray>

namespace runbox::console {

bool isRouteMissing(const ApiResponse& r) {
    if (r.status == 405 || r.status == 501)
        return true;
    if (r.status != 404)
        return false;
    const QString code = r.errorCode();
    return code.isEmpty() || code == QLatin1String("not_found");
}

namespace {
QDateTime timeOf(const QJsonValue& v) {
    if (!v.isString())
        return {};
    QDateTime t = QDateTime::fromString(v.toString(), Qt::ISODateWithMs);
    return t.isValid() ? t.toUTC() : QDateTime();
}

std::optional<int> intOf(const QJsonValue& v) {
    return v.isDouble() ? std::optional<int>(v.toInt()) : std::nullopt;
}
} // namespace

ExecutionInfo ExecutionInfo::fromJson(const QJsonObject& record) {
    ExecutionInfo e;
    e.raw = record;
    e.id = record.value(QLatin1String("executionId")).toString();
    e.workspace = record.value(QLatin1String("workspace")).toString();
    e.kind = record.value(QLatin1String("kind")).toString();
    e.state = record.value(QLatin1String("state")).toString();
    e.queuePosition = intOf(record.value(QLatin1String("queuePosition")));
    e.createdAt = timeOf(record.value(QLatin1String("createdAt")));
    e.startedAt = timeOf(record.value(QLatin1String("startedAt")));
    e.finishedAt = timeOf(record.value(QLatin1String("finishedAt")));
    e.exitCode = intOf(record.value(QLatin1String("exitCode")));
    const QJsonValue sig = record.value(QLatin1String("signal"));
    e.signal = sig.isDouble() ? QString::number(sig.toInt()) : sig.toString();
    if (record.value(QLatin1String("durationMs")).isDouble())
        e.durationMs = qint64(record.value(QLatin1String("durationMs")).toDouble());
    e.statusReason = record.value(QLatin1String("statusReason")).toString();
    QJsonArray chips =
        record.value(QLatin1String("permissionEpoch")).toObject().value("npuDevices").toArray();
    if (chips.isEmpty())
        chips = record.value(QLatin1String("npuDevices")).toArray();
    for (const QJsonValue& c : chips)
        e.npuDevices.append(c.toInt());
    const QJsonObject epoch = record.value(QLatin1String("permissionEpoch")).toObject();
    for (auto [field, key] : {std::pair{&e.environmentId, "environmentId"},
                              std::pair{&e.environmentRevisionId, "environmentRevisionId"}}) {
        *field = epoch.value(QLatin1String(key)).toString();
        if (field->isEmpty())
            *field = record.value(QLatin1String(key)).toString();
    }
    return e;
}

void ExecutionInfo::applyExitEvent(const QJsonObject& ev) {
    state = ev.value(QLatin1String("status")).toString(state);
    exitCode = intOf(ev.value(QLatin1String("exitCode")));
    const QJsonValue sig = ev.value(QLatin1String("signal"));
    signal = sig.isDouble() ? QString::number(sig.toInt()) : sig.toString();
    if (ev.value(QLatin1String("durationMs")).isDouble())
        durationMs = qint64(ev.value(QLatin1String("durationMs")).toDouble());
    statusReason = ev.value(QLatin1String("reason")).toString(statusReason);
    for (const char* key : {"createdFiles", "modifiedFiles", "deletedFiles", "usage"})
        if (ev.contains(QLatin1String(key)))
            raw.insert(QLatin1String(key), ev.value(QLatin1String(key)));
    raw.insert(QStringLiteral("state"), state);
    if (!finishedAt.isValid())
        finishedAt = QDateTime::currentDateTimeUtc();
}

bool ExecutionInfo::isTerminal() const {
    return !state.isEmpty() && state != QLatin1String("queued") &&
           state != QLatin1String("running");
}

std::optional<qint64> ExecutionInfo::effectiveDurationMs(const QDateTime& nowUtc) const {
    if (durationMs)
        return durationMs;
    if (state == QLatin1String("running") && startedAt.isValid())
        return startedAt.msecsTo(nowUtc);
    return std::nullopt;
}

QStringList ExecutionInfo::allStates() {
    return {QStringLiteral("queued"),
            QStringLiteral("running"),
            QStringLiteral("completed"),
            QStringLiteral("failed"),
            QStringLiteral("timed_out"),
            QStringLiteral("cancelled"),
            QStringLiteral("output_limited"),
            QStringLiteral("quota_exceeded"),
            QStringLiteral("memory_exceeded"),
            QStringLiteral("setup_failed"),
            QStringLiteral("lost")};
}

QString ExecutionInfo::stateLabel(const QString& state) {
    if (state == QLatin1String("queued"))
        return tr("Queued");
    if (state == QLatin1String("running"))
        return tr("Running");
    if (state == QLatin1String("completed"))
        return tr("Completed");
    if (state == QLatin1String("failed"))
        return tr("Failed");
    if (state == QLatin1String("timed_out"))
        return tr("Timed out");
    if (state == QLatin1String("cancelled"))
        return tr("Cancelled");
    if (state == QLatin1String("output_limited"))
        return tr("Output limited");
    if (state == QLatin1String("quota_exceeded"))
        return tr("Quota exceeded");
    if (state == QLatin1String("memory_exceeded"))
        return tr("Memory exceeded");
    if (state == QLatin1String("setup_failed"))
        return tr("Setup failed");
    if (state == QLatin1String("lost"))
        return tr("Lost");
    return state.isEmpty() ? tr("Unknown") : state;
}

QColor ExecutionInfo::stateColor(const QString& state) {
    if (state == QLatin1String("completed"))
        return QColor(0x2e, 0x7d, 0x32);
    if (state == QLatin1String("running"))
        return QColor(0x15, 0x65, 0xc0);
    if (state == QLatin1String("queued"))
        return QColor(0x6a, 0x6a, 0x6a);
    if (state == QLatin1String("cancelled") || state == QLatin1String("lost"))
        return QColor(0x8d, 0x6e, 0x63);
    if (state == QLatin1String("timed_out") || state == QLatin1String("output_limited") ||
        state == QLatin1String("quota_exceeded") || state == QLatin1String("memory_exceeded"))
        return QColor(0xb2, 0x6a, 0x00);
    return QColor(0xc6, 0x28, 0x28); // failed, setup_failed
}

QString ExecutionInfo::stateIcon(const QString& state) {
    if (state == QLatin1String("completed"))
        return QStringLiteral(":/icons/state-completed.svg");
    if (state == QLatin1String("running"))
        return QStringLiteral(":/icons/state-running.svg");
    if (state == QLatin1String("queued"))
        return QStringLiteral(":/icons/state-queued.svg");
    if (state == QLatin1String("cancelled") || state == QLatin1String("lost"))
        return QStringLiteral(":/icons/state-cancelled.svg");
    if (state == QLatin1String("timed_out") || state == QLatin1String("output_limited") ||
        state == QLatin1String("quota_exceeded") || state == QLatin1String("memory_exceeded"))
        return QStringLiteral(":/icons/state-limited.svg");
    return QStringLiteral(":/icons/state-failed.svg");
}

} // namespace runbox::console
