#include "agent/environments/EnvironmentProvisioner.h"

#include "agent/environments/EnvironmentErrors.h"

#include <QFile>

namespace runbox::environments {

std::optional<Error> EnvironmentProvisioner::indexCaTool(const QString& caFile,
                                                         QList<BuildTool>* out) {
    out->clear();
    if (caFile.isEmpty())
        return std::nullopt;
    QFile file(caFile);
    if (!file.open(QIODevice::ReadOnly) || file.size() > kMaxCaBytes)
        return environmentUnavailable(
            QStringLiteral("envIndexCaFile %1 cannot be read (or is over %2 bytes)")
                .arg(caFile)
                .arg(kMaxCaBytes));
    out->append(BuildTool{file.readAll(), QLatin1String(kIndexCaMount)});
    return std::nullopt;
}

} // namespace runbox::environments
