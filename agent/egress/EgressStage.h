#pragma once

#include "agent/execution/LaunchPlanner.h"

namespace runbox::egress {

class EgressService;

/// The launch stage of egress (agent/egress/README.md "Launching a strong sandbox"):
/// - epoch mode `none`: adds nothing; the launch stays exactly the foundation's (no channel, no
///   proxy variables, the Baseline seccomp profile that refuses sockets);
/// - `domain-allowlist`: acquires the execution's gateway socket for the epoch's policy (the
///   snapshot, never the current one), binds it and the bridge into the sandbox under
///   /run/runbox, sets the six proxy variables, selects the Network seccomp profile and runs the
///   command under `runbox-egress-bridge … --status-fd 5 --`, so a bridge that cannot start ends
///   the execution `setup_failed`. The release action closes the socket.
/// Still `--unshare-all` without `--share-net`: the sandbox's only interface is its own loopback.
class EgressStage final : public execution::LaunchStage {
public:
    static constexpr const char* kRunDir = "/run/runbox";
    static constexpr const char* kBridgeInSandbox = "/run/runbox/egress-bridge";
    static constexpr const char* kSocketInSandbox = "/run/runbox/egress.sock";
    static constexpr const char* kListen = "127.0.0.1:18118";
    static constexpr const char* kProxyUrl = "http://127.0.0.1:18118";
    static constexpr const char* kNoProxy = "localhost,127.0.0.1";
    static constexpr int kStatusFd = 5; ///< after 3 (seccomp) and 4 (bwrap's json status)

    /// The six proxy variables pointing at kProxyUrl, with NO_PROXY/no_proxy kNoProxy: what a
    /// strong sandbox gets here and a light workspace under the domain allowlist at creation.
    static QMap<QString, QString> proxyEnvironment();
    /// Reads the egress bridge's status line (SandboxLaunch::readSetupStatus): "ready" → the
    /// set-up succeeded; "error: cannot execute …" → the command's own failure (status failed,
    /// its exit code 126/127); any other "error: …" or no line → setup_failed naming the bridge.
    static std::optional<sandbox::SetupFailure> readBridgeStatus(const QString& line, int exitCode);

    /// @p service must outlive the stage.
    explicit EgressStage(EgressService* service) : m_service(service) {}

    /// Errors (the execution then ends setup_failed): 503 egress_unavailable (no bridge, no
    /// socket), 500 invalid_network_snapshot (an epoch whose policy does not parse or whose
    /// revision does not match it).
    void prepare(const execution::LaunchContext& context, execution::LaunchPlan* plan,
                 std::function<void(std::optional<Error>)> done) override;

private:
    EgressService* m_service;
};

} // namespace runbox::egress
