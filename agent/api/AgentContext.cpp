#include "agent/api/AgentContext.h"

namespace runbox::api {

QString AgentContext::unavailableReason() const {
    if (!capability.usable)
        return capability.unusableReason.isEmpty()
                   ? QStringLiteral("bubblewrap cannot build a sandbox on this host: %1")
                         .arg(capability.detail)
                   : capability.unusableReason;
    if (!seccompError.isEmpty())
        return QStringLiteral("the seccomp profile could not be built: %1").arg(seccompError);
    return {};
}

} // namespace runbox::api
