#pragma once

#include "agent/Error.h"
#include "agent/workspace/WorkspaceFd.h"

#include <QList>

#include <sys/types.h>

#include <optional>
#include <vector>

namespace runbox::bounds {

/// One unix socket as the kernel's socket diagnostics report it (sock_diag(7), linux/unix_diag.h).
struct UnixSocketInfo {
    quint32 inode = 0;     ///< udiag_ino: the socket's inode (`socket:[N]` in /proc/PID/fd)
    uid_t uid = uid_t(-1); ///< UNIX_DIAG_UID: the creator's uid (Linux 5.3+); -1 when absent
    quint8 type = 0;       ///< SOCK_STREAM, SOCK_DGRAM or SOCK_SEQPACKET
    quint8 state = 0;      ///< TCP_ESTABLISHED (1), TCP_CLOSE (7) or TCP_LISTEN (10)
    bool hasPeer = false;  ///< UNIX_DIAG_PEER present: it is connected (a socketpair end too)
    /// The peer's inode; 0 with @ref hasPeer when the peer has been closed (its memory is no
    /// longer listed: what it had sent lies in this socket's receive queue, uncounted).
    quint32 peer = 0;
    /// UNIX_DIAG_RQLEN udiag_rqueue: bytes queued to read (stream, seqpacket), the length of the
    /// first datagram only (dgram), or the pending connections (a listener).
    quint32 receiveQueue = 0;
    /// SK_MEMINFO_WMEM_ALLOC: bytes (skb truesize) of what this socket sent that still lies in a
    /// receive queue, wherever that is: the exact kernel memory of its writes.
    quint32 sendAlloc = 0;
    quint32 sendBuffer = 0; ///< SK_MEMINFO_SNDBUF, bytes
    /// A listener's pending connections (UNIX_DIAG_ICONS): the inode of each one's client, 0
    /// when the client has been closed since it connected.
    QList<quint32> pending;
};

/// A NETLINK_SOCK_DIAG socket that lists the unix sockets of one network namespace, the one it
/// was created in (sock_diag(7): a dump covers the sockets of the diag socket's own namespace;
/// the socket keeps that namespace, whichever thread reads it later). One dump asks for
/// UDIAG_SHOW_PEER | ICONS | RQLEN | MEMINFO | UID. Blocking, but a dump only copies what the
/// kernel holds (no I/O): about 1 µs per socket here (docs/bounds.md "Unix socket buffers").
class UnixSocketDiag final {
public:
    /// A diag socket in the calling thread's network namespace. Errors: Unavailable
    /// `sock_diag_unavailable` (no NETLINK_SOCK_DIAG: the kernel lacks CONFIG_UNIX_DIAG or the
    /// family is refused).
    static std::optional<UnixSocketDiag> open(Error* error);
    /// A diag socket in the network namespace @p namespaceFd (an open `/proc/PID/ns/net`): a
    /// short-lived thread enters it with setns(2) (CAP_SYS_ADMIN over the namespace: a root
    /// agent), creates the socket there and exits; the caller's own namespace is unchanged.
    /// Errors: PermissionDenied `netns_enter_failed`, Unavailable `sock_diag_unavailable`.
    static std::optional<UnixSocketDiag> openIn(int namespaceFd, Error* error);

    /// Every unix socket of the namespace, appended to @p out. False with @p error (Internal
    /// `sock_diag_failed`: the kernel answered an error, e.g. no UNIX_DIAG_UID before 5.3, or
    /// the dump broke off).
    bool dump(std::vector<UnixSocketInfo>* out, Error* error) const;
    /// The number of sockets of the namespace, of every family and owner (`sockets: used` of
    /// its /proc/net/sockstat, proc(5), opened with the diag socket so it is the same
    /// namespace's); -1 when unreadable. One pread(2): a cheap sign that sockets came or went.
    qint64 socketsInUse() const;

    int fd() const { return m_fd.get(); }

private:
    UnixSocketDiag(int fd, int sockstatFd) : m_fd(fd), m_sockstat(sockstatFd) {}
    workspace::UniqueFd m_fd;
    workspace::UniqueFd m_sockstat;
    mutable quint32 m_sequence = 0;
};

} // namespace runbox::bounds
