#pragma once
// Small file helpers for tests that set up and inspect directory trees (header-only, Qt Core).

#include "shared/Crypto.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QPair>
#include <QString>
#include <QStringList>

#include <algorithm>
#include <sys/stat.h>

namespace runbox::testsupport {

/// Writes @p content to @p path (created or truncated); false on any failure.
inline bool writeFile(const QString& path, const QByteArray& content) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(content) == content.size();
}

/// The whole content of @p path; empty when it cannot be read.
inline QByteArray readFile(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// (st_dev, st_ino): which inode a path or descriptor refers to.
using FileIdentity = QPair<quint64, quint64>;

/// The identity of @p path, following links with @p followLinks (stat) or not (lstat);
/// {0, 0} when absent.
inline FileIdentity fileIdentity(const QString& path, bool followLinks = true) {
    struct stat st {};
    const QByteArray native = QFile::encodeName(path);
    if ((followLinks ? ::stat(native.constData(), &st) : ::lstat(native.constData(), &st)) != 0)
        return {0, 0};
    return {quint64(st.st_dev), quint64(st.st_ino)};
}

/// The identity of the open descriptor @p fd (fstat); {0, 0} when it is not open.
inline FileIdentity fileIdentity(int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        return {0, 0};
    return {quint64(st.st_dev), quint64(st.st_ino)};
}

/// The entries of @p dir (hidden and system ones included, no `.`/`..`), sorted: what a host
/// directory holds, compared before and after an operation that must leave nothing behind.
inline QStringList hostEntries(const QString& dir) {
    QStringList l =
        QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
    l.sort();
    return l;
}

/// The names of the directories directly in @p dir owned by @p uid (lstat, hidden ones included),
/// sorted: light homes and spare homes are told apart by their owner.
inline QStringList directoriesOwnedBy(const QString& dir, uid_t uid) {
    QStringList names;
    for (const QString& name : hostEntries(dir)) {
        struct stat st {};
        const QByteArray path = QFile::encodeName(dir + QLatin1Char('/') + name);
        if (::lstat(path.constData(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == uid)
            names << name;
    }
    return names;
}

/// @p size bytes from the CSPRNG (incompressible test content).
inline QByteArray randomBytes(qint64 size) {
    QByteArray out;
    out.reserve(size);
    while (out.size() < size)
        out += crypto::randomBytes(int(std::min<qint64>(65536, size - out.size())));
    return out;
}

} // namespace runbox::testsupport
