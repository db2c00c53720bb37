#pragma once

#include "agent/execution/LaunchPlanner.h"

#include <QJsonValue>

namespace runbox::proxy {

/// The launch stage of the port proxy for strong workspaces (docs/contracts.md "Port proxy for
/// browsers"): an execution asked with `"proxy": true` gets the UnixSockets seccomp profile
/// instead of the Baseline one, so it can listen on `/workspace/.runbox/proxy/<port>.sock`,
/// which the proxy then reaches (WorkspaceSocket). Under the Network or Npu profile (an egress
/// policy, NPU chips) sockets are allowed already and nothing changes. Light workspaces ignore
/// the field: their code may always listen there.
class ProxyStage final : public execution::LaunchStage {
public:
    /// The request field and epoch section.
    static const QString kField;
    /// `proxy`: true or false (400 `invalid_request` otherwise).
    static std::optional<Error> checkField(const QJsonValue& requested);
    /// Records `proxy` (true only when asked) in the epoch.
    static void recordInto(const execution::ExecRequest& request,
                           execution::PermissionEpoch* epoch);

    void prepare(const execution::LaunchContext& context, execution::LaunchPlan* plan,
                 std::function<void(std::optional<Error>)> done) override;
};

} // namespace runbox::proxy
