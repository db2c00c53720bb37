#include "agent/light/LightTypes.h"

#include "agent/light/RlimitsJson.h"
#include "agent/light/SupervisorProtocol.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonArray>

namespace runbox::light {

QString LightHostConfig::defaultSupervisorPath() {
    const QString name = QStringLiteral("runbox-light-supervisor");
    QStringList candidates;
    const QString fromEnv = qEnvironmentVariable("RUNBOX_LIGHT_SUPERVISOR");
    if (!fromEnv.isEmpty())
        candidates << fromEnv;
    const QString dir =
        QCoreApplication::instance() ? QCoreApplication::applicationDirPath() : QString();
    if (!dir.isEmpty())
        candidates << dir + QLatin1Char('/') + name
                   << dir + QStringLiteral("/../libexec/runbox/") + name;
    for (const QString& candidate : candidates) {
        const QFileInfo info(candidate);
        if (info.isFile() && info.isExecutable())
            return info.canonicalFilePath();
    }
    return {};
}

QJsonObject LightConfinement::toJson() const {
    return QJsonObject{
        {QStringLiteral("mode"), QStringLiteral("landlock")},
        {QStringLiteral("landlockAbi"), landlockAbi},
        {QStringLiteral("filesystem"), filesystem},
        {QStringLiteral("network"), network},
        {QStringLiteral("scopedAbstractUnixSockets"), scopeAbstractUnix},
        {QStringLiteral("scopedSignals"), scopeSignal},
        {QStringLiteral("pidNamespace"), pidNamespace},
        {QStringLiteral("privateProc"), privateProc},
        {QStringLiteral("hostRuntimeDirsMasked"), hostRuntimeDirsMasked},
    };
}

LightConfinement LightConfinement::fromFlags(int abi, std::uint32_t flags) {
    LightConfinement confinement;
    confinement.landlockAbi = abi;
    confinement.filesystem = flags & wire::kHasFsRules;
    confinement.network = flags & wire::kHasNetRules;
    confinement.scopeAbstractUnix = flags & wire::kHasScopeAbstractUnix;
    confinement.scopeSignal = flags & wire::kHasScopeSignal;
    confinement.pidNamespace = flags & wire::kHasPidNamespace;
    confinement.privateProc = flags & wire::kHasPrivateProc;
    confinement.hostRuntimeDirsMasked = flags & wire::kHasMaskedRuntimeDirs;
    return confinement;
}

QJsonObject LightAvailability::toJson() const {
    return QJsonObject{
        {QStringLiteral("available"), available},
        {QStringLiteral("reason"), reason},
        {QStringLiteral("warnings"), QJsonArray::fromStringList(warnings)},
        {QStringLiteral("confinement"), expected.toJson()},
    };
}

QJsonObject LightWorkspaceInfo::toJson() const {
    QJsonArray ports;
    for (quint16 port : allowedConnectPorts)
        ports.append(port);
    return QJsonObject{
        {QStringLiteral("id"), id},
        {QStringLiteral("uid"), static_cast<double>(uid)},
        {QStringLiteral("isolation"), QStringLiteral("light")},
        {QStringLiteral("confinement"), confinement.toJson()},
        {QStringLiteral("limits"), RlimitsJson::toJson(limits)},
        {QStringLiteral("allowedConnectPorts"), ports},
        {QStringLiteral("runningExecutions"), runningExecutions},
    };
}

} // namespace runbox::light
