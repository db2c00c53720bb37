#pragma once

#include <QtGlobal>

namespace runbox::egress {

/// Limits of an egress gateway; every value in milliseconds or bytes as named.
struct EgressGatewayOptions {
    int connectTimeoutMs = 10'000;     ///< per upstream address tried
    int idleTimeoutMs = 300'000;       ///< no byte either way on an open upstream connection
    int requestHeadTimeoutMs = 30'000; ///< the client must send its whole request head by then
    int lingerMs = 2'000;              ///< after an error response, wait this long for client EOF
    qsizetype maxRequestHeadBytes = 64 * 1024;
    qsizetype highWaterBytes = 1024 * 1024; ///< queued bytes that pause reading the other side
    /// Connections open at once per execution socket or light workspace listener; past it a new
    /// one is closed at once, unanswered (one sandbox cannot take the agent's descriptors).
    int maxConnectionsPerSandbox = 256;
};

} // namespace runbox::egress
