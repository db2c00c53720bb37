#include "agent/proxy/ProxyStage.h"

namespace runbox::proxy {

const QString ProxyStage::kField = QStringLiteral("proxy");

std::optional<Error> ProxyStage::checkField(const QJsonValue& requested) {
    if (requested.isBool())
        return std::nullopt;
    return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_request"),
                 QStringLiteral("proxy must be true or false")};
}

void ProxyStage::recordInto(const execution::ExecRequest& request,
                            execution::PermissionEpoch* epoch) {
    if (request.features.value(kField).toBool())
        epoch->features.insert(kField, true);
}

void ProxyStage::prepare(const execution::LaunchContext& context, execution::LaunchPlan* plan,
                         std::function<void(std::optional<Error>)> done) {
    if (context.epoch.features.value(kField).toBool() &&
        plan->seccompProfile == sandbox::SeccompProfileKind::Baseline)
        plan->seccompProfile = sandbox::SeccompProfileKind::UnixSockets;
    done(std::nullopt);
}

} // namespace runbox::proxy
