#pragma once

#include "agent/Error.h"

#include <QHostAddress>

#include <optional>

namespace runbox::tls {

/// Whether @p address is a loopback address: 127.0.0.0/8, ::1, or an IPv4-mapped 127.x
/// (`::ffff:127.0.0.1`). The wildcard addresses (0.0.0.0, ::) are not: they listen on every
/// interface.
bool isLoopback(const QHostAddress& address);

/// The plain-HTTP rule (docs/contracts.md "TLS and pinning"): a plain listener on a
/// non-loopback @p address is refused unless @p allowPlaintextRemote (--allow-plaintext-remote),
/// since signed requests protect the integrity of requests, not the confidentiality of what
/// travels: outputs, logs, files and the tokens of new workspaces cross the network readable.
/// Returns the refusal (PermissionDenied `plaintext_remote_refused`, its message naming the
/// address, why and what to use instead), or std::nullopt when the listener may start.
std::optional<Error> plaintextListenRefusal(const QHostAddress& address, bool allowPlaintextRemote);

} // namespace runbox::tls
