#pragma once

#include <QMap>
#include <QString>

namespace runbox::testsupport {

/// Writes wheel `NAME-VERSION-py3-none-any.whl` into @p dir (readable by everyone, for an agent
/// that runs as another user) with the host's python3 zipfile module: `NAME/__init__.py` holding
/// @p code, and a dist-info with METADATA (@p dependsOn as `Requires-Dist` when not empty), WHEEL
/// and RECORD (each file's sha256, urlsafe base64 without padding: PEP 376, PEP 427). For the
/// science environments' offline wheelhouse (docs/environments.md). @p extraFiles: more files
/// of the wheel by their path in it (e.g. a `NAME.pth` that site runs at every interpreter
/// start). False when python3 failed.
bool writeWheel(const QString& dir, const QString& name, const QString& version,
                const QString& code, const QString& dependsOn = {},
                const QMap<QString, QString>& extraFiles = {});

/// Makes directory @p dir (a QTemporaryDir, 0700) readable and searchable by everyone (0755),
/// so the build sandboxes, running as other uids, can read the wheels bound from it.
bool openToSandboxes(const QString& dir);

} // namespace runbox::testsupport
