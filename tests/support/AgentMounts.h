#pragma once

#include <QFile>
#include <QString>

#include <sys/mount.h>

namespace runbox::testsupport {

/// Detaches the nosuid,nodev bind mounts a root agent makes in @p stateDir (workspaces/,
/// light/; sandbox::NoSuidMount), which an agent that was killed leaves behind, so that the
/// state directory can be removed. Errors are ignored (nothing mounted there).
inline void detachAgentMounts(const QString& stateDir) {
    for (const char* dir : {"/workspaces", "/light"})
        ::umount2(QFile::encodeName(stateDir + QLatin1String(dir)).constData(), MNT_DETACH);
}

} // namespace runbox::testsupport
