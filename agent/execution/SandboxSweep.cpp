#include "agent/execution/SandboxSweep.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <csignal>
#include <unistd.h>

namespace runbox::execution {

int SandboxSweep::killLeftovers(const QString& stateDir, const QStringList& launchers) {
    QStringList executables;
    for (const QString& path : launchers)
        if (const QString canonical = QFileInfo(path).canonicalFilePath(); !canonical.isEmpty())
            executables << canonical;
    const QString state = QFileInfo(stateDir).canonicalFilePath();
    if (executables.isEmpty() || state.isEmpty())
        return 0;
    int killed = 0;
    const QStringList pids = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString& pidText : pids) {
        bool ok = false;
        const pid_t pid = pid_t(pidText.toInt(&ok));
        if (!ok || pid == getpid())
            continue;
        const QString proc = QStringLiteral("/proc/") + pidText;
        if (!executables.contains(QFile::symLinkTarget(proc + QStringLiteral("/exe"))) ||
            QFile::symLinkTarget(proc + QStringLiteral("/cwd")) != state)
            continue;
        const pid_t group = getpgid(pid);
        if (group == pid ? ::kill(-group, SIGKILL) == 0 : ::kill(pid, SIGKILL) == 0)
            ++killed;
    }
    return killed;
}

} // namespace runbox::execution
