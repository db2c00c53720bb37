#include "agent/bounds/UnixSocketMemory.h"

#include "agent/bounds/EffectiveCapability.h"

#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox::bounds {

namespace {

constexpr quint8 kStateListen = 10;          // TCP_LISTEN, as unix_diag reports a listener
constexpr qint64 kOvershootBytes = 64 << 10; // pages of the last skb past the send buffer
constexpr qint64 kFallbackWmemMax = 16ll << 20;

qint64 readNumber(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    bool ok = false;
    const qint64 value = f.readAll().trimmed().toLongLong(&ok);
    return ok ? value : -1;
}

quint64 inodeOf(const char* path) {
    struct stat st {};
    return ::stat(path, &st) == 0 ? quint64(st.st_ino) : 0;
}

} // namespace

UnixSocketMemory::UnixSocketMemory(QString procRoot) : m_procRoot(std::move(procRoot)) {
    probe();
}

bool UnixSocketMemory::mayEnterNamespaces() {
    return holdsEffectiveCapSysAdmin();
}

quint64 UnixSocketMemory::ownNetworkNamespace() {
    return inodeOf("/proc/thread-self/ns/net");
}

void UnixSocketMemory::probe() {
    // The largest send buffer an unprivileged socket may ask for is 2 × wmem_max (socket(7)
    // SO_SNDBUF: the kernel doubles the value).
    qint64 wmemMax = readNumber(m_procRoot + QStringLiteral("/sys/net/core/wmem_max"));
    if (wmemMax <= 0)
        wmemMax = kFallbackWmemMax;
    m_calibration.sendBufferMaxBytes = 2 * wmemMax;
    m_ownNamespace = ownNetworkNamespace();

    Error error;
    std::optional<UnixSocketDiag> diag = UnixSocketDiag::open(&error);
    if (!diag) {
        m_reason = error.message;
        return;
    }
    // One byte in a socketpair of our own: its WMEM_ALLOC (SIOCOUTQ, unix(7)) is the truesize
    // of the smallest skb, and the dump must show it with its owner.
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        m_reason =
            QStringLiteral("socketpair: %1").arg(QString::fromLocal8Bit(std::strerror(errno)));
        return;
    }
    const workspace::UniqueFd a(pair[0]), b(pair[1]);
    int queued = 0;
    struct stat st {};
    if (::send(a.get(), "x", 1, MSG_DONTWAIT) != 1 || ::ioctl(a.get(), SIOCOUTQ, &queued) != 0 ||
        ::fstat(a.get(), &st) != 0) {
        m_reason = QStringLiteral("cannot probe a unix socket's send queue");
        return;
    }
    if (queued > 0)
        m_calibration.oneByteTruesize = queued;
    std::vector<UnixSocketInfo> sockets;
    if (!diag->dump(&sockets, &error)) {
        m_reason = error.message;
        return;
    }
    for (const UnixSocketInfo& s : sockets) {
        if (s.inode != quint32(st.st_ino))
            continue;
        if (s.uid == uid_t(-1)) {
            m_reason = QStringLiteral("the kernel does not report unix sockets' owners "
                                      "(UNIX_DIAG_UID, Linux 5.3+)");
            return;
        }
        m_available = true;
        m_reason = QStringLiteral("sock_diag: a 1-byte skb takes %1 bytes, a closed writer left "
                                  "at most %2 bytes (stream) or %3 (datagram)")
                       .arg(m_calibration.oneByteTruesize)
                       .arg(ceilingOf(SOCK_STREAM, m_calibration))
                       .arg(ceilingOf(SOCK_DGRAM, m_calibration));
        if (m_ownNamespace != 0)
            m_namespaces.emplace(m_ownNamespace, Namespace{std::move(*diag), {}, -1, true, 0});
        return;
    }
    m_reason = QStringLiteral("the unix socket dump does not list the agent's own sockets");
}

qint64 UnixSocketMemory::ceilingOf(int type, const Calibration& calibration) {
    // A stream writer blocks once its buffer is full, after at most one skb past it (unix
    // stream skbs carry at most 32 KiB of pages plus a page of head); a datagram writer may
    // still send one datagram as large as the buffer.
    if (type == SOCK_STREAM)
        return calibration.sendBufferMaxBytes + kOvershootBytes;
    return 2 * calibration.sendBufferMaxBytes + kOvershootBytes;
}

UnixSocketMemory::Charge UnixSocketMemory::chargeOf(const UnixSocketInfo& socket,
                                                    const Calibration& calibration) {
    Charge charge;
    charge.sockets = 1;
    charge.exactBytes = socket.sendAlloc;
    if (socket.state == kStateListen) {
        // A pending connection is a socket of its own, not listed; what its client wrote is
        // listed at the client while it lives (sendAlloc), and unseen once it is closed.
        for (const quint32 client : socket.pending)
            if (client == 0)
                charge.estimatedBytes += ceilingOf(socket.type, calibration);
    } else if (socket.hasPeer && socket.peer == 0) {
        // The writer is gone; a connected socket receives from its peer only (unix(7)).
        const qint64 ceiling = ceilingOf(socket.type, calibration);
        if (socket.type == SOCK_STREAM)
            charge.estimatedBytes =
                std::min(ceiling, qint64(socket.receiveQueue) * calibration.oneByteTruesize);
        else
            charge.estimatedBytes = ceiling;
    }
    return charge;
}

UnixSocketMemory::Namespace* UnixSocketMemory::namespaceFor(quint64 namespaceInode, pid_t pid) {
    const auto it = m_namespaces.find(namespaceInode);
    if (it != m_namespaces.end())
        return &it->second;
    Error error;
    std::optional<UnixSocketDiag> diag;
    if (namespaceInode == m_ownNamespace) {
        diag = UnixSocketDiag::open(&error);
    } else {
        const QByteArray path =
            QFile::encodeName(QStringLiteral("%1/%2/ns/net").arg(m_procRoot).arg(pid));
        const workspace::UniqueFd ns(::open(path.constData(), O_RDONLY | O_CLOEXEC));
        struct stat st {};
        if (!ns.valid() || ::fstat(ns.get(), &st) != 0 || quint64(st.st_ino) != namespaceInode)
            return nullptr; // the process left or is gone: the next scan names another
        diag = UnixSocketDiag::openIn(ns.get(), &error);
    }
    if (!diag) {
        if (!m_warned.contains(namespaceInode)) {
            m_warned.insert(namespaceInode);
            qWarning("warning: the unix sockets of network namespace %llu are not counted: %s",
                     static_cast<unsigned long long>(namespaceInode), qPrintable(error.message));
        }
        return nullptr;
    }
    return &m_namespaces.emplace(namespaceInode, Namespace{std::move(*diag), {}, -1, true, 0})
                .first->second;
}

QHash<uid_t, UnixSocketMemory::Charge>
UnixSocketMemory::measure(const QHash<quint64, pid_t>& namespaces, const QSet<uid_t>& uids,
                          const QSet<quint64>& privateNamespaces,
                          QHash<quint64, Charge>* byNamespace) {
    QHash<uid_t, Charge> charges;
    if (!m_available)
        return charges;
    for (auto it = m_namespaces.begin(); it != m_namespaces.end();) {
        if (it->first != m_ownNamespace && !namespaces.contains(it->first))
            it = m_namespaces.erase(it);
        else
            ++it;
    }
    for (auto it = namespaces.cbegin(); it != namespaces.cend(); ++it) {
        Namespace* ns = namespaceFor(it.key(), it.value());
        if (!ns)
            continue;
        const bool whole =
            byNamespace && it.key() != m_ownNamespace && privateNamespaces.contains(it.key());
        const qint64 inUse = ns->diag.socketsInUse();
        if (!ns->hadSockets && inUse >= 0 && inUse == ns->socketsAtDump &&
            ns->uidsAtDump.contains(uids) && ++ns->idleCalls < kIdleDumpCalls)
            continue; // none of these uids had a socket here, and no socket came since
        ns->idleCalls = 0;
        ns->socketsAtDump = inUse;
        ns->uidsAtDump = uids;
        ns->hadSockets = false;
        m_sockets.clear();
        Error error;
        if (!ns->diag.dump(&m_sockets, &error)) {
            if (!m_warned.contains(it.key())) {
                m_warned.insert(it.key());
                qWarning("warning: the unix sockets of network namespace %llu are not counted: "
                         "%s",
                         static_cast<unsigned long long>(it.key()), qPrintable(error.message));
            }
            m_namespaces.erase(it.key()); // opened afresh next time
            continue;
        }
        for (const UnixSocketInfo& s : m_sockets) {
            if (!whole && !uids.contains(s.uid))
                continue;
            ns->hadSockets = true;
            (whole ? (*byNamespace)[it.key()] : charges[s.uid]).add(chargeOf(s, m_calibration));
        }
    }
    for (Charge& charge : charges)
        charge.objectBytes = charge.sockets * kSocketObjectBytes;
    if (byNamespace)
        for (Charge& charge : *byNamespace)
            charge.objectBytes = charge.sockets * kSocketObjectBytes;
    return charges;
}

} // namespace runbox::bounds
