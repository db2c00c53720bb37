#pragma once

#include <QString>

namespace runbox::service {

/// Tells the service manager what the agent is doing, through sd_notify(3) (libsystemd): the
/// readiness protocol of the unit's `Type=notify` (docs/service.md "Readiness"). Each call sends
/// one datagram to the socket systemd names in `NOTIFY_SOCKET` (read by libsystemd, not a setting
/// of the configuration table: it is systemd's protocol, like `LISTEN_FDS`); without that variable
/// every call does nothing. A send that fails is ignored: the agent serves on either way, and
/// systemd then reports the start as timed out.
class ServiceNotifier final {
public:
    /// Whether a service manager listens: `NOTIFY_SOCKET` is set (checked at every call).
    static bool active();
    /// `READY=1` and `STATUS=@p status`: the listener accepts and the sandbox probe is done.
    /// Call once, from the event loop (so that a request right after it is served).
    static void ready(const QString& status);
    /// `STATUS=@p status` alone.
    static void status(const QString& status);
    /// `STOPPING=1` and `STATUS=@p status`: the agent has begun its shutdown.
    static void stopping(const QString& status);
};

} // namespace runbox::service
