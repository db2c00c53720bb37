#include "agent/light/tier/LightRootPath.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox::light {

bool LightRootPath::makeReachable(const QString& root, const QString& stateDir, QString* error) {
    const QString state = QDir::cleanPath(stateDir);
    QString path = QFileInfo(QDir::cleanPath(root)).path(); // the root's parent
    for (;;) {
        const QByteArray native = QFile::encodeName(path);
        struct stat st {};
        if (::stat(native.constData(), &st) == 0 && !(st.st_mode & S_IXOTH)) {
            const bool ours = path == state && st.st_uid == ::geteuid();
            if (!ours || ::chmod(native.constData(), 0711) != 0) {
                *error = QStringLiteral("light workspace homes under %1 are unreachable by their "
                                        "uids: %2 is mode %3 (others cannot search it); set "
                                        "RUNBOX_LIGHT_ROOT to a directory every user can reach, "
                                        "e.g. /var/lib/runbox-light")
                             .arg(root, path)
                             .arg(st.st_mode & 07777, 4, 8, QLatin1Char('0'));
                return false;
            }
            // The state dir can now be searched: keep what sits in it to its owner.
            for (const char* name : {"runbox.db", "runbox.db-wal", "runbox.db-shm"})
                ::chmod(QFile::encodeName(path + QLatin1Char('/') + QLatin1String(name)), 0600);
        }
        if (path == QLatin1String("/") || path.isEmpty())
            return true;
        path = QFileInfo(path).path();
    }
}

} // namespace runbox::light
