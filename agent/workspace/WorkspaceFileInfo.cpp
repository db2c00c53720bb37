#include "agent/workspace/WorkspaceFileInfo.h"

#include "shared/Crypto.h"

#include <QDateTime>
#include <QStringDecoder>

#include <sys/stat.h>

namespace runbox::workspace {

namespace {

bool isValidUtf8(const QByteArray& bytes) {
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    const QString decoded = decoder.decode(bytes);
    Q_UNUSED(decoded);
    return !decoder.hasError();
}

void putText(QJsonObject* o, const QString& key, const QByteArray& bytes) {
    o->insert(key, QString::fromUtf8(bytes));
    if (!isValidUtf8(bytes))
        o->insert(key + QStringLiteral("Base64"), QString::fromLatin1(bytes.toBase64()));
}

} // namespace

FileInfo FileInfo::fromStat(QByteArrayView name, const struct stat& st) {
    FileInfo info;
    info.name = name.toByteArray();
    if (S_ISREG(st.st_mode))
        info.type = FileType::File;
    else if (S_ISDIR(st.st_mode))
        info.type = FileType::Directory;
    else if (S_ISLNK(st.st_mode))
        info.type = FileType::Symlink;
    else
        info.type = FileType::Other;
    info.size = qint64(st.st_size);
    info.allocatedBytes = qint64(st.st_blocks) * 512;
    info.mode = quint32(st.st_mode & 07777);
    info.mtimeNs = qint64(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
    info.dev = quint64(st.st_dev);
    info.ino = quint64(st.st_ino);
    return info;
}

QString FileInfo::typeName(FileType type) {
    switch (type) {
    case FileType::File:
        return QStringLiteral("file");
    case FileType::Directory:
        return QStringLiteral("directory");
    case FileType::Symlink:
        return QStringLiteral("symlink");
    case FileType::Other:
        break;
    }
    return QStringLiteral("other");
}

QByteArray FileInfo::etag() const {
    const QByteArray key = QByteArray::number(dev) + ':' + QByteArray::number(ino) + ':' +
                           QByteArray::number(size) + ':' + QByteArray::number(mtimeNs);
    return '"' + crypto::sha256Hex(key).left(32) + '"';
}

QJsonObject FileInfo::toJson() const {
    QJsonObject o;
    putText(&o, QStringLiteral("name"), name);
    o.insert(QStringLiteral("type"), typeName(type));
    o.insert(QStringLiteral("size"), size);
    o.insert(QStringLiteral("allocatedBytes"), allocatedBytes);
    o.insert(QStringLiteral("mode"), QStringLiteral("%1").arg(mode, 4, 8, QLatin1Char('0')));
    const qint64 ms = mtimeNs / 1000000;
    o.insert(QStringLiteral("mtime"),
             QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs));
    o.insert(QStringLiteral("mtimeMs"), ms);
    if (type == FileType::Symlink)
        putText(&o, QStringLiteral("target"), symlinkTarget);
    return o;
}

QJsonObject FileInfo::toEntryJson(const QByteArray& path) const {
    QJsonObject o = toJson();
    putText(&o, QStringLiteral("path"), path);
    if (type == FileType::Symlink)
        putText(&o, QStringLiteral("linkTarget"), symlinkTarget);
    return o;
}

} // namespace runbox::workspace
