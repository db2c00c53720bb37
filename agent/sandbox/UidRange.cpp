#include "agent/sandbox/UidRange.h"

#include <QFile>

namespace runbox::sandbox {

namespace {

/// Field @p index (0-based) of each colon-separated line of @p path, as numbers.
QList<QPair<QByteArray, quint64>> numericField(const QString& path, int index) {
    QList<QPair<QByteArray, quint64>> out;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return out;
    for (const QByteArray& line : file.readAll().split('\n')) {
        const QList<QByteArray> fields = line.split(':');
        bool ok = false;
        const quint64 value = fields.value(index).toULongLong(&ok);
        if (ok)
            out.append({fields.value(0), value});
    }
    return out;
}

/// `name:start:count` lines of subuid(5) / subgid(5).
QList<QPair<QByteArray, UidRange>> subordinateRanges(const QString& path) {
    QList<QPair<QByteArray, UidRange>> out;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return out;
    for (const QByteArray& line : file.readAll().split('\n')) {
        const QList<QByteArray> fields = line.trimmed().split(':');
        bool okStart = false, okCount = false;
        const quint64 start = fields.value(1).toULongLong(&okStart);
        const quint64 count = fields.value(2).toULongLong(&okCount);
        if (fields.size() == 3 && okStart && okCount)
            out.append({fields.value(0), UidRange{start, count}});
    }
    return out;
}

} // namespace

QString UidRange::toString() const {
    return count == 0 ? QStringLiteral("(empty)")
                      : QStringLiteral("%1-%2").arg(first).arg(end() - 1);
}

QStringList uidRangeConflicts(const UidRange& range, const UidRange& other,
                              const HostIdFiles& files) {
    QStringList conflicts;
    if (range.count == 0)
        return {QStringLiteral("the range is empty")};
    if (range.end() > 4294967295ULL)
        conflicts << QStringLiteral("it ends past uid 4294967294");
    if (range.contains(0))
        conflicts << QStringLiteral("it contains uid 0");
    if (range.overlaps(kSystemdDynamicUsers))
        conflicts << QStringLiteral("it overlaps systemd's dynamic users %1")
                         .arg(kSystemdDynamicUsers.toString());
    if (range.contains(kNobodyUid))
        conflicts << QStringLiteral("it contains nobody (65534)");
    if (other.count > 0 && range.overlaps(other))
        conflicts
            << QStringLiteral("it overlaps the light workspaces' uids %1").arg(other.toString());
    for (const auto& [name, uid] : numericField(files.passwd, 2))
        if (range.contains(uid))
            conflicts << QStringLiteral("%1 has user %2 (uid %3)")
                             .arg(files.passwd, QString::fromUtf8(name))
                             .arg(uid);
    for (const auto& [name, gid] : numericField(files.group, 2))
        if (range.contains(gid))
            conflicts << QStringLiteral("%1 has group %2 (gid %3)")
                             .arg(files.group, QString::fromUtf8(name))
                             .arg(gid);
    for (const QString& path : {files.subuid, files.subgid})
        for (const auto& [name, sub] : subordinateRanges(path))
            if (range.overlaps(sub))
                conflicts << QStringLiteral("%1 gives %2 the range %3")
                                 .arg(path, QString::fromUtf8(name), sub.toString());
    return conflicts;
}

} // namespace runbox::sandbox
