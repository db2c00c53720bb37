#include "agent/AgentContext.h"

#include <QDateTime>

namespace runbox {

QString AgentContext::unavailableReason() const {
    if (!host.capability.usable)
        return host.capability.unusableReason.isEmpty()
                   ? QStringLiteral("bubblewrap cannot build a sandbox on this host: %1")
                         .arg(host.capability.detail)
                   : host.capability.unusableReason;
    if (!host.seccompError.isEmpty())
        return QStringLiteral("the seccomp profile could not be built: %1").arg(host.seccompError);
    if (!host.sandboxUserError.isEmpty())
        return host.sandboxUserError;
    return {};
}

void AgentContext::noteWorkspaceCount() {
    if (!workspaces)
        return;
    if (workspaces->count() > 0)
        noWorkspacesSinceMs = 0;
    else if (noWorkspacesSinceMs == 0)
        noWorkspacesSinceMs = QDateTime::currentMSecsSinceEpoch();
}

QJsonObject AgentContext::idleJson() const {
    const int count = workspaces ? workspaces->count() : 0;
    const qint64 emptyFor = count == 0 && noWorkspacesSinceMs > 0
                                ? QDateTime::currentMSecsSinceEpoch() - noWorkspacesSinceMs
                                : -1;
    return {{"workspaces", count},
            {"noWorkspacesForMs", emptyFor >= 0 ? QJsonValue(emptyFor) : QJsonValue()},
            {"idleAfterMs", config.idleAfterMs},
            {"exitWhenIdleS", config.exitWhenIdleS},
            {"idle", config.idleAfterMs > 0 && emptyFor >= config.idleAfterMs}};
}

} // namespace runbox
