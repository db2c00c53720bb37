#include "console/api/FileEntry.h"

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

FileEntry::Type typeOf(const QString& t) {
    if (t == QLatin1String("file"))
        return FileEntry::Type::File;
    if (t == QLatin1String("directory"))
        return FileEntry::Type::Directory;
    if (t == QLatin1String("symlink"))
        return FileEntry::Type::Symlink;
    if (t == QLatin1String("other"))
        return FileEntry::Type::Other;
    return FileEntry::Type::Unknown;
}
} // namespace

FileEntry FileEntry::fromJson(const QJsonObject& o) {
    FileEntry e;
    e.name = text(o, "name");
    const QByteArray raw = QByteArray::fromBase64(text(o, "nameBase64").toLatin1(),
                                                  QByteArray::AbortOnBase64DecodingErrors);
    e.nameBytes = !raw.isEmpty() ? raw : e.name.toUtf8();
    e.path = text(o, "path");
    e.type = typeOf(text(o, "type"));
    e.size = wholeNumber(o, "size");
    e.allocatedBytes = wholeNumber(o, "allocatedBytes");
    bool ok = false;
    const int mode = text(o, "mode").toInt(&ok, 8);
    e.mode = ok && mode >= 0 && mode <= 07777 ? mode : -1;
    const qint64 ms = wholeNumber(o, "mtimeMs");
    if (ms >= 0) {
        e.mtime = QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
    } else {
        const QDateTime t = QDateTime::fromString(text(o, "mtime"), Qt::ISODateWithMs);
        e.mtime = t.isValid() ? t.toUTC() : QDateTime();
    }
    if (e.type == Type::Symlink)
        e.linkTarget =
            o.contains(QLatin1String("linkTarget")) ? text(o, "linkTarget") : text(o, "target");
    return e;
}

QString FileEntry::typeLabel(Type type) {
    switch (type) {
    case Type::File:
        return tr("File");
    case Type::Directory:
        return tr("Folder");
    case Type::Symlink:
        return tr("Link");
    case Type::Other:
        return tr("Other");
    case Type::Unknown:
        break;
    }
    return tr("Unknown");
}

QString FileEntry::permissionsText() const {
    if (mode < 0)
        return {};
    QString s;
    for (int shift = 6; shift >= 0; shift -= 3) {
        const int bits = (mode >> shift) & 7;
        s += QLatin1Char(bits & 4 ? 'r' : '-');
        s += QLatin1Char(bits & 2 ? 'w' : '-');
        s += QLatin1Char(bits & 1 ? 'x' : '-');
    }
    return s;
}

DirectoryPage DirectoryPage::fromJson(const QJsonObject& answer) {
    DirectoryPage p;
    p.path = text(answer, "path");
    for (const QJsonValue& v : answer.value(QLatin1String("entries")).toArray()) {
        if (!v.isObject())
            continue;
        FileEntry e = FileEntry::fromJson(v.toObject());
        if (!e.nameBytes.isEmpty())
            p.entries.append(e);
    }
    p.total = wholeNumber(answer, "total");
    p.offset = qMax<qint64>(0, wholeNumber(answer, "offset"));
    p.limit = wholeNumber(answer, "limit");
    p.nextOffset = wholeNumber(answer, "nextOffset");
    return p;
}

} // namespace runbox::console
