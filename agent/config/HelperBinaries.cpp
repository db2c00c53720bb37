#include "agent/config/HelperBinaries.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace runbox::config {

QStringList helperBinaryDirs() {
    if (!QCoreApplication::instance())
        return {};
    const QString dir = QCoreApplication::applicationDirPath();
    return {dir, QDir::cleanPath(dir + QStringLiteral("/../libexec/runbox"))};
}

QString helperBinaryPath(const QString& name, const QString& configured) {
    QStringList candidates;
    if (!configured.isEmpty())
        candidates << configured;
    for (const QString& dir : helperBinaryDirs())
        candidates << dir + QLatin1Char('/') + name;
    for (const QString& candidate : candidates) {
        const QFileInfo info(candidate);
        if (info.isFile() && info.isExecutable())
            return info.canonicalFilePath();
    }
    return {};
}

} // namespace runbox::config
