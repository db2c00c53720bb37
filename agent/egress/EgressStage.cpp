#include "agent/egress/EgressStage.h"

#include "agent/egress/NetworkEpoch.h"

#include "agent/egress/EgressService.h"
#include "agent/egress/NetworkPolicy.h"

#include <QFile>

#include <unistd.h>

namespace runbox::egress {

QMap<QString, QString> EgressStage::proxyEnvironment() {
    QMap<QString, QString> env;
    for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"})
        env.insert(QLatin1String(name), QLatin1String(kProxyUrl));
    for (const char* name : {"NO_PROXY", "no_proxy"})
        env.insert(QLatin1String(name), QLatin1String(kNoProxy));
    return env;
}

void EgressStage::prepare(const execution::LaunchContext& context, execution::LaunchPlan* plan,
                          std::function<void(std::optional<Error>)> done) {
    const NetworkEpoch epoch = NetworkEpoch::readFrom(context.epoch);
    if (epoch.mode == QLatin1String("none"))
        return done(std::nullopt);
    const auto fail = [&](const Error& error) { done(error); };
    const auto invalid = [&](const QString& why) {
        fail(Error{
            ErrorKind::Internal, QStringLiteral("invalid_network_snapshot"),
            QStringLiteral("the execution's network policy snapshot is unusable: %1").arg(why)});
    };
    if (epoch.mode != QLatin1String("domain-allowlist"))
        return invalid(QStringLiteral("unknown mode \"%1\"").arg(epoch.mode));
    Error parseError;
    const std::optional<NetworkPolicy> policy = NetworkPolicy::fromJson(epoch.policy, &parseError);
    if (!policy)
        return invalid(parseError.message);
    if (policy->revision() != epoch.revision)
        return invalid(QStringLiteral("revision %1 does not match its policy (%2)")
                           .arg(epoch.revision, policy->revision()));
    if (const QString problem = m_service->bridgeProblem(); !problem.isEmpty())
        return fail(Error{ErrorKind::Unavailable, QStringLiteral("egress_unavailable"), problem});

    Error error;
    const std::optional<QString> socket =
        m_service->acquire(*policy, context.executionId, context.workspaceId, &error);
    if (!socket)
        return fail(error);
    // A sandbox user must be able to connect to its own socket (unix(7): write permission).
    if (context.workspaceUid && ::lchown(QFile::encodeName(*socket).constData(),
                                         *context.workspaceUid, *context.workspaceUid) != 0) {
        m_service->release(context.executionId);
        return fail(Error{
            ErrorKind::Internal, QStringLiteral("egress_unavailable"),
            QStringLiteral("cannot hand the egress socket to uid %1").arg(*context.workspaceUid)});
    }
    EgressService* service = m_service;
    const QString executionId = context.executionId;
    plan->releases.push_back([service, executionId] { service->release(executionId); });

    const QString runDir = QLatin1String(kRunDir);
    const QString bridge = QLatin1String(kBridgeInSandbox);
    const QString socketInside = QLatin1String(kSocketInSandbox);
    plan->spec.extraArgs << QStringLiteral("--dir") << runDir << QStringLiteral("--ro-bind")
                         << m_service->bridgePath() << bridge << QStringLiteral("--bind") << *socket
                         << socketInside;
    const QMap<QString, QString> proxyEnv = proxyEnvironment();
    for (auto it = proxyEnv.cbegin(); it != proxyEnv.cend(); ++it)
        plan->spec.extraEnv.insert(it.key(), it.value());
    plan->seccompProfile = sandbox::SeccompProfileKind::Network;
    plan->commandPrefix = QStringList{bridge, QStringLiteral("--socket"), socketInside,
                                      QStringLiteral("--listen"), QLatin1String(kListen),
                                      QStringLiteral("--status-fd"), QString::number(kStatusFd),
                                      // the gateway adopts each client socket (FdStream)
                                      QStringLiteral("--hand-over"), QStringLiteral("--")} +
                          plan->commandPrefix;
    plan->setupStatusFd = kStatusFd;
    plan->readSetupStatus = &EgressStage::readBridgeStatus;
    done(std::nullopt);
}

std::optional<sandbox::SetupFailure> EgressStage::readBridgeStatus(const QString& line,
                                                                   int exitCode) {
    // runbox-egress-bridge --status-fd writes "ready" once the command runs, or "error: <why>";
    // "error: cannot execute" is the command's own failure (126/127, as a shell and bwrap's
    // execvp report it), anything else — or no line at all — is a set-up failure.
    if (line.startsWith(QLatin1String("ready")))
        return std::nullopt;
    if (line.startsWith(QLatin1String("error: cannot execute")))
        return sandbox::SetupFailure{QStringLiteral("failed"), exitCode, line.mid(7)};
    return sandbox::SetupFailure{
        QStringLiteral("setup_failed"), -1,
        line.startsWith(QLatin1String("error: "))
            ? QStringLiteral("egress bridge: %1").arg(line.mid(7))
            : QStringLiteral("the egress bridge did not report ready (exit status %1)")
                  .arg(exitCode)};
}

} // namespace runbox::egress
