#pragma once

#include <QByteArray>
#include <QString>

/// The bytes the crash writer puts in a log, derived from the execution id and the logical
/// offset, so the checker can recompute any acknowledged range without the writer's state.
namespace runbox::testsupport {

inline quint32 idSeed(const QString& id) {
    quint32 h = 2166136261u; // FNV-1a
    for (const QChar c : id) {
        h ^= c.unicode();
        h *= 16777619u;
    }
    return h;
}

inline QByteArray crashPattern(const QString& id, qint64 offset, qint64 size) {
    const quint32 seed = idSeed(id);
    QByteArray data(size, Qt::Uninitialized);
    for (qint64 i = 0; i < size; ++i) {
        const quint64 j = quint64(offset + i);
        data[i] = char(quint8((j * 131u + seed) ^ (j >> 7) ^ (seed >> 11)));
    }
    return data;
}

} // namespace runbox::testsupport
