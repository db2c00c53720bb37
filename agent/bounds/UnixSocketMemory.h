#pragma once

#include "agent/bounds/UnixSocketDiag.h"

#include <QHash>
#include <QSet>
#include <QString>

#include <map>

namespace runbox::bounds {

/// The kernel memory held in unix socket buffers, per owner uid (docs/bounds.md "Unix socket
/// buffers"): memory no process's RSS shows, which a light workspace can fill (one socketpair
/// holds up to twice its send buffer). Read with sock_diag(7) from one diag socket per network
/// namespace the watched processes are in, each opened on first need and kept while needed.
///
/// What a socket is charged (chargeOf):
/// - exactly, what it sent that is still queued anywhere (SK_MEMINFO_WMEM_ALLOC: the skbs'
///   truesize, charged to the sender until read; in a listener's pending connections, in another
///   uid's socket, in a socket in flight in SCM_RIGHTS: all are listed);
/// - estimated, what it holds from a writer that has been closed (its memory is no longer
///   listed), as an upper bound, since only the queued bytes are reported and not the number of
///   skbs (a 1-byte skb takes 768 bytes): a connected stream socket whose peer is gone,
///   `min(ceiling, queued bytes × truesize of a 1-byte skb)`; a datagram or seqpacket socket
///   whose peer is gone, the ceiling (only the first datagram's length is reported, and 0-byte
///   records exist); a listener's pending connection whose client is gone, the ceiling. The
///   ceiling (ceilingOf) is what one writer can have queued: its largest send buffer
///   (2 × net.core.wmem_max, socket(7) SO_SNDBUF) plus the skb that may pass it (stream: 64 KiB;
///   a datagram: as large as the buffer).
/// Not seen: datagrams from closed senders queued on an unconnected datagram socket (at most
/// net.unix.max_dgram_qlen + 1 per receiving socket), sockets in a network namespace no watched
/// process is in any more.
class UnixSocketMemory final {
public:
    /// Bytes charged to one uid.
    struct Charge {
        qint64 exactBytes = 0;     ///< sent and still queued (WMEM_ALLOC)
        qint64 estimatedBytes = 0; ///< held from writers that are gone (upper bounds)
        /// The sockets' own kernel objects, kSocketObjectBytes each (set by measure()).
        qint64 objectBytes = 0;
        int sockets = 0;
        qint64 total() const { return exactBytes + estimatedBytes + objectBytes; }
        void add(const Charge& other) {
            exactBytes += other.exactBytes;
            estimatedBytes += other.estimatedBytes;
            objectBytes += other.objectBytes;
            sockets += other.sockets;
        }
    };
    /// What one unix socket takes in kernel memory empty (its sock, inode, dentry and file),
    /// bytes: 396,000 empty sockets raised the host's unreclaimable slab by 1.35 GB (3.4 KB each,
    /// Linux 6.18 x86-64), rounded up.
    static constexpr qint64 kSocketObjectBytes = 3584;
    /// The kernel's figures the estimates use, probed at construction.
    struct Calibration {
        qint64 oneByteTruesize = 1024; ///< WMEM_ALLOC of one 1-byte skb (768 on Linux 6.18 x86-64)
        qint64 sendBufferMaxBytes = 32ll << 20; ///< 2 × net.core.wmem_max
    };

    /// @p procRoot: where `/proc/PID/ns/net` and `/proc/sys/net/core/wmem_max` are read.
    explicit UnixSocketMemory(QString procRoot = QStringLiteral("/proc"));
    UnixSocketMemory(const UnixSocketMemory&) = delete;
    UnixSocketMemory& operator=(const UnixSocketMemory&) = delete;

    /// Whether sockets can be listed here (a diag socket in the agent's own namespace dumped
    /// and showed owner uids); reason() says why not.
    bool available() const { return m_available; }
    QString reason() const { return m_reason; }
    const Calibration& calibration() const { return m_calibration; }

    /// Sums the charges of the sockets owned by each of @p uids, over the network namespaces
    /// @p namespaces: namespace inode → a pid in it, through whose `/proc/PID/ns/net` the
    /// namespace is entered when no diag socket for it is open yet. Diag sockets of namespaces
    /// not named are closed (they pin their namespace). A namespace that cannot be entered or
    /// listed is skipped, with one `warning:` line per namespace; its sockets count 0. A dump
    /// costs about 0.5 µs per socket of the namespace, whoever owns it (the host's namespace
    /// holds all of the host's), so a namespace where the last dump found no socket of @p uids
    /// is dumped again only when its count of sockets (UnixSocketDiag::socketsInUse) has
    /// changed, @p uids has grown, or on every kIdleDumpCalls-th call: new sockets of a uid are
    /// seen at the next call; only as many as the host closed meanwhile may wait, at most that
    /// many calls. From the first socket of a uid on, every call dumps.
    ///
    /// The namespaces of @p privateNamespaces (each also in @p namespaces; never the agent's own)
    /// belong to one execution each, a strong sandbox's: every socket listed there is charged,
    /// whoever owns it, into @p byNamespace under the namespace's inode, and not to its uid.
    QHash<uid_t, Charge> measure(const QHash<quint64, pid_t>& namespaces, const QSet<uid_t>& uids,
                                 const QSet<quint64>& privateNamespaces = {},
                                 QHash<quint64, Charge>* byNamespace = nullptr);

    /// Whether this process may enter other network namespaces to list their sockets: setns(2)
    /// of a network namespace needs CAP_SYS_ADMIN in the caller's own user namespace (and over
    /// the target's), so a root agent (or one holding CAP_SYS_ADMIN) can, others cannot.
    static bool mayEnterNamespaces();

    static constexpr int kIdleDumpCalls = 10;

    /// What one writer of a socket of @p type (SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET) can have
    /// queued at most, bytes.
    static qint64 ceilingOf(int type, const Calibration& calibration);
    /// The bytes charged for @p socket (see the class comment), exact and estimated.
    static Charge chargeOf(const UnixSocketInfo& socket, const Calibration& calibration);
    /// The inode of the network namespace of the calling thread (`/proc/thread-self/ns/net`);
    /// 0 when unreadable.
    static quint64 ownNetworkNamespace();

private:
    /// A network namespace being watched: its diag socket and what its last dump found.
    struct Namespace {
        UnixSocketDiag diag;
        QSet<uid_t> uidsAtDump;    ///< the uids asked for at the last dump
        qint64 socketsAtDump = -1; ///< socketsInUse() right before it
        bool hadSockets = true;    ///< the last dump listed sockets of those uids
        int idleCalls = 0;         ///< calls skipped since
    };
    Namespace* namespaceFor(quint64 namespaceInode, pid_t pid);
    void probe();

    QString m_procRoot;
    bool m_available = false;
    QString m_reason;
    Calibration m_calibration;
    quint64 m_ownNamespace = 0;
    std::map<quint64, Namespace> m_namespaces; ///< by namespace inode
    QSet<quint64> m_warned;                    ///< namespaces already reported as unreadable
    std::vector<UnixSocketInfo> m_sockets;     ///< reused between dumps
};

} // namespace runbox::bounds
