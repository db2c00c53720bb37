#pragma once

#include <cstdint>
#include <string>

namespace runbox::light {

/// The private network of a light workspace that reaches the egress gateway (the network policy
/// `domain-allowlist`, docs/light-workspaces.md "Egress gateway"). Runs in the supervisor, as
/// root, before it drops to the workspace uid: no libc allocation beyond std::string, no Qt.
///
/// The workspace gets a network namespace of its own (unshare(2) CLONE_NEWNET) whose only
/// interface is `lo`, brought up here (netdevice(7) SIOCSIFFLAGS). In it the supervisor opens the
/// gateway's listening socket, 127.0.0.1:@p port, and hands it to the agent: a socket keeps the
/// network namespace it was made in (network_namespaces(7)), so the agent accepts, on its own
/// side, the connections that only this workspace's processes can make. Nothing else in the
/// namespace leads anywhere: there is no route off `lo`.
class WorkspaceNetwork final {
public:
    /// The in-workspace address of the gateway: the same port as the strong tier's bridge.
    static constexpr std::uint16_t kGatewayPort = 18118;

    /// Enters a new network namespace, brings `lo` up and returns the listening socket
    /// (SOCK_STREAM, CLOEXEC, backlog 128) on 127.0.0.1:@p port; −1 with @p why (and errno) set
    /// on failure. Needs CAP_SYS_ADMIN and CAP_NET_ADMIN.
    static int enterPrivateNetwork(std::uint16_t port, std::string* why);
};

} // namespace runbox::light
