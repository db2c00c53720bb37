#pragma once

#include <QByteArray>
#include <QString>

namespace runbox::bounds {

/// Reads and writes cgroup interface files the way the kernel expects them: one write(2) per
/// value, errno kept (a refused `memory.max` write says EINVAL, a full subtree EBUSY). Kernel
/// doc Documentation/admin-guide/cgroup-v2.rst "Interface Files".
namespace cgroupfile {

/// The whole file; @p ok false when it cannot be opened or read.
QByteArray read(const QString& path, bool* ok = nullptr);
/// Writes @p value in one write(2). False with @p error ("PATH: strerror") on failure.
bool write(const QString& path, const QByteArray& value, QString* error);
/// The value of @p key in a flat-keyed file (`memory.events`, `cpu.stat`: "key value" lines);
/// -1 when the key is absent or the value not a whole number.
qint64 keyedValue(const QByteArray& text, const QByteArray& key);
/// A single-value file (`memory.peak`, `pids.current`): its number, -1 when absent or "max".
qint64 singleValue(const QString& path);

} // namespace cgroupfile
} // namespace runbox::bounds
