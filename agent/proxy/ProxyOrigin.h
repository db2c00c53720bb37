#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

namespace runbox::proxy {

/// The browser origin of one workspace's port (docs/contracts.md "Port proxy for browsers"):
/// host `<port>-<workspace id>.<proxy domain>`, so that pages of two workspaces, or of two ports
/// of one, never share an origin (cookies, storage, scripts' same-origin rights). With the
/// default domain `localhost`, browsers resolve every such name to loopback (RFC 6761 §6.3); an
/// agent reached from other machines needs a wildcard DNS name for its domain.
struct ProxyOrigin {
    int port = 0;
    QString workspaceId;

    /// The origin named by a request's Host header @p host (any `:port` suffix ignored, case
    /// folded) under @p domain; nullopt for any other host, the agent's own included. A
    /// workspace id is 16 hex digits (light) or `w` and 16 hex digits (strong).
    static std::optional<ProxyOrigin> fromHost(const QByteArray& host, const QString& domain);
    /// `<port>-<id>.<domain>`.
    QString hostName(const QString& domain) const;
};

} // namespace runbox::proxy
