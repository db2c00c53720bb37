#include "shared/ProtocolVersion.h"

#include <QJsonValue>

namespace runbox::protocol {

QString mismatch(const QJsonObject& health, const QString& agentUrl, const QString& clientName) {
    const QJsonValue protocol = health.value(QLatin1String("protocol"));
    const QString agentVersion = health.value(QLatin1String("version")).toString();
    const QString ours = QStringLiteral("this %1 speaks protocol %2 (%3)")
                             .arg(clientName)
                             .arg(kVersion)
                             .arg(QStringLiteral(RUNBOX_VERSION));
    if (!protocol.isDouble() || protocol.toDouble() != double(protocol.toInt()))
        return QStringLiteral("the server at %1 names no protocol version in /health, so it is "
                              "not a Runbox agent this client can talk to; %2")
            .arg(agentUrl, ours);
    if (protocol.toInt() == kVersion)
        return {};
    const QString theirs = agentVersion.isEmpty()
                               ? QStringLiteral("runbox-agent of unknown version")
                               : QStringLiteral("runbox-agent %1").arg(agentVersion);
    const QString advice =
        protocol.toInt() > kVersion
            ? QStringLiteral("upgrade this %1 to the agent's release").arg(clientName)
            : QStringLiteral("upgrade the agent, or use a %1 of its release").arg(clientName);
    return QStringLiteral("the agent at %1 speaks protocol %2 (%3); %4: %5")
        .arg(agentUrl)
        .arg(protocol.toInt())
        .arg(theirs, ours, advice);
}

} // namespace runbox::protocol
