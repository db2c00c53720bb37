#include "agent/light/LightTypes.h"

#include "agent/light/RlimitsJson.h"
#include "agent/light/helper/SupervisorProtocol.h"
#include "agent/light/helper/WorkspaceNetwork.h"

#include <QJsonArray>

namespace runbox::light {

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
        {QStringLiteral("seccomp"), seccomp},
    };
}

QString LightConfinement::gatewayProxyUrl() {
    return QStringLiteral("http://127.0.0.1:%1").arg(WorkspaceNetwork::kGatewayPort);
}

QJsonObject LightConfinement::networkAccessJson() const {
    QJsonArray families{QStringLiteral("unix")};
    if (inetStream || inetDatagram)
        families << QStringLiteral("inet") << QStringLiteral("inet6");
    QJsonArray ports;
    for (quint16 port : tcpConnectPorts)
        ports.append(port);
    QString summary;
    if (!seccomp)
        summary = QStringLiteral("no seccomp profile: socket families are not restricted");
    else if (egressGateway)
        summary = QStringLiteral("a network namespace of its own with only lo: HTTP(S) to the "
                                 "allowlisted names through the egress gateway at %1 (the proxy "
                                 "variables are set), nothing else; no UDP")
                      .arg(gatewayProxyUrl());
    else if (!inetStream && !inetDatagram)
        summary = QStringLiteral("unix sockets only: no AF_INET/AF_INET6 socket can be created");
    else
        summary = (inetStream ? QStringLiteral("TCP connect to the listed ports only (any "
                                               "address); no TCP bind")
                              : QStringLiteral("no TCP")) +
                  (inetDatagram ? QStringLiteral("; UDP to and from anywhere (Landlock cannot "
                                                 "filter UDP)")
                                : QStringLiteral("; no UDP"));
    if (policyMode == QLatin1String("domain-allowlist") && !egressGateway)
        summary += QStringLiteral("; no egress gateway (it needs a network namespace per "
                                  "workspace, which needs a root agent), so the domain allowlist "
                                  "gives this workspace no network");
    QJsonValue gateway(QJsonValue::Null);
    if (egressGateway)
        gateway = QJsonObject{
            {QStringLiteral("proxy"), gatewayProxyUrl()},
            {QStringLiteral("networkNamespace"), true},
            {QStringLiteral("decisions"), QStringLiteral("per workspace")},
        };
    return QJsonObject{
        {QStringLiteral("policyMode"),
         policyMode.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(policyMode)},
        {QStringLiteral("families"), families},
        {QStringLiteral("tcpConnectPorts"), ports},
        {QStringLiteral("udp"), inetDatagram},
        {QStringLiteral("egressGateway"), gateway},
        {QStringLiteral("summary"), summary},
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
    confinement.seccomp = flags & wire::kHasSeccomp;
    confinement.inetStream = flags & wire::kHasInetStream;
    confinement.inetDatagram = flags & wire::kHasInetDatagram;
    confinement.egressGateway = flags & wire::kHasEgressGateway;
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

QJsonObject LightWorkspaceInfo::workspaceConfinementJson() const {
    QJsonObject json = confinement.toJson();
    json.insert(QStringLiteral("networkAccess"), confinement.networkAccessJson());
    return json;
}

QJsonObject LightWorkspaceInfo::toJson() const {
    QJsonArray ports;
    for (quint16 port : allowedConnectPorts)
        ports.append(port);
    return QJsonObject{
        {QStringLiteral("id"), id},
        {QStringLiteral("uid"), static_cast<double>(uid)},
        {QStringLiteral("isolation"), QStringLiteral("light")},
        {QStringLiteral("confinement"), workspaceConfinementJson()},
        {QStringLiteral("limits"), RlimitsJson::toJson(limits)},
        {QStringLiteral("allowedConnectPorts"), ports},
        {QStringLiteral("runningExecutions"), runningExecutions},
    };
}

} // namespace runbox::light
