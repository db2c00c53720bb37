#include "console/api/WorkspaceInfo.h"

#include <QJsonArray>

namespace runbox::console {

namespace {
QString text(const QJsonObject& o, const char* key) {
    return o.value(QLatin1String(key)).toString();
}

/// A whole non-negative number, or -1 when absent, of another type or out of range.
qint64 wholeNumber(const QJsonObject& o, const char* key) {
    const QJsonValue v = o.value(QLatin1String(key));
    if (!v.isDouble())
        return -1;
    const double d = v.toDouble();
    if (d < 0 || d > 9.0e15 || d != double(qint64(d)))
        return -1;
    return qint64(d);
}
} // namespace

WorkspaceInfo WorkspaceInfo::fromJson(const QJsonObject& o) {
    WorkspaceInfo w;
    w.raw = o;
    w.id = text(o, "id");
    w.isolation = text(o, "isolation");
    const QDateTime t = QDateTime::fromString(text(o, "createdAt"), Qt::ISODateWithMs);
    w.createdAt = t.isValid() ? t.toUTC() : QDateTime();
    w.uid = wholeNumber(o, "uid");
    w.environmentBuild = text(o, "environmentBuild");
    w.idleTimeoutS = wholeNumber(o, "idleTimeoutS");
    w.confinement = o.value(QLatin1String("confinement")).toObject();
    w.lastBoundsKill = o.value(QLatin1String("lastBoundsKill")).toObject();
    for (auto [key, field] :
         {std::pair{"lastUsedAt", &w.lastUsedAt}, std::pair{"idleDeadlineAt", &w.idleDeadlineAt}}) {
        const QDateTime at = QDateTime::fromString(text(o, key), Qt::ISODateWithMs);
        *field = at.isValid() ? at.toUTC() : QDateTime();
    }
    w.environmentId = text(o, "environmentId");
    w.recordedExecutions = wholeNumber(o, "recordedExecutions");
    const QDateTime last = QDateTime::fromString(text(o, "lastExecutionAt"), Qt::ISODateWithMs);
    w.lastExecutionAt = last.isValid() ? last.toUTC() : QDateTime();
    w.token = text(o, "token");
    return w;
}

QList<WorkspaceInfo> WorkspaceInfo::listFromJson(const QJsonObject& answer) {
    QList<WorkspaceInfo> out;
    for (const QJsonValue& v : answer.value(QLatin1String("workspaces")).toArray()) {
        if (!v.isObject())
            continue;
        WorkspaceInfo w = fromJson(v.toObject());
        if (!w.id.isEmpty())
            out.append(w);
    }
    return out;
}

QString WorkspaceInfo::isolationLabel(const QString& isolation) {
    if (isolation == QLatin1String("strong"))
        return tr("Strong");
    if (isolation == QLatin1String("light"))
        return tr("Light");
    return isolation;
}

QString WorkspaceInfo::boundsKillText() const {
    if (lastBoundsKill.isEmpty())
        return {};
    const QString bound = text(lastBoundsKill, "bound");
    const QString reason = text(lastBoundsKill, "reason");
    return reason.isEmpty() ? tr("Background processes killed (%1)").arg(bound)
                            : tr("Background processes killed (%1): %2").arg(bound, reason);
}

WorkspaceCreateResult WorkspaceCreateResult::fromJson(const QJsonObject& answer) {
    WorkspaceCreateResult r;
    r.workspaces = WorkspaceInfo::listFromJson(answer);
    const QJsonValue rejected = answer.value(QLatin1String("rejected"));
    r.rejected = rejected.isDouble() ? qMax(0, rejected.toInt()) : 0;
    return r;
}

} // namespace runbox::console
