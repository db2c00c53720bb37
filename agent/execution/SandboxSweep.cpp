#include "agent/execution/SandboxSweep.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <csignal>
#include <unistd.h>

namespace runbox::execution {

int SandboxSweep::killLeftovers(const QString& stateDir, const QString& bwrapPath) {
    const QString bwrap = QFileInfo(bwrapPath).canonicalFilePath();
    const QString state = QFileInfo(stateDir).canonicalFilePath();
    if (bwrap.isEmpty() || state.isEmpty())
        return 0;
    int killed = 0;
    const QStringList pids = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString& pidText : pids) {
        bool ok = false;
        const pid_t pid = pid_t(pidText.toInt(&ok));
        if (!ok || pid == getpid())
            continue;
        const QString proc = QStringLiteral("/proc/") + pidText;
        if (QFile::symLinkTarget(proc + QStringLiteral("/exe")) != bwrap ||
            QFile::symLinkTarget(proc + QStringLiteral("/cwd")) != state)
            continue;
        const pid_t group = getpgid(pid);
        if (group == pid ? ::kill(-group, SIGKILL) == 0 : ::kill(pid, SIGKILL) == 0)
            ++killed;
    }
    return killed;
}

} // namespace runbox::execution
