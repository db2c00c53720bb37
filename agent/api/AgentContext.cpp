#include "agent/api/AgentContext.h"

namespace runbox::api {

QString AgentContext::unavailableReason() const {
    if (!host.capability.usable)
        return host.capability.unusableReason.isEmpty()
                   ? QStringLiteral("bubblewrap cannot build a sandbox on this host: %1")
                         .arg(host.capability.detail)
                   : host.capability.unusableReason;
    if (!host.seccompError.isEmpty())
        return QStringLiteral("the seccomp profile could not be built: %1").arg(host.seccompError);
    return {};
}

} // namespace runbox::api
