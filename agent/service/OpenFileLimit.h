#pragma once

#include <QString>

#include <optional>

namespace runbox::service {

/// Raises the agent's soft RLIMIT_NOFILE (getrlimit(2)) towards its hard limit so that
/// @p maxConnections sockets plus the agent's own descriptors (database, logs, pipes, sandboxes
/// in flight: 512) fit. Returns a warning for the log when the hard limit is too low, else
/// nothing.
std::optional<QString> raiseOpenFileLimit(qint64 maxConnections);

} // namespace runbox::service
