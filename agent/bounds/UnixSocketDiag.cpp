#include "agent/bounds/UnixSocketDiag.h"

#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

namespace runbox::bounds {

namespace {

constexpr quint32 kShow =
    UDIAG_SHOW_PEER | UDIAG_SHOW_ICONS | UDIAG_SHOW_RQLEN | UDIAG_SHOW_MEMINFO | UDIAG_SHOW_UID;

Error unavailable(const QString& why) {
    return Error{
        ErrorKind::Unavailable, QStringLiteral("sock_diag_unavailable"),
        QStringLiteral("unix socket diagnostics (NETLINK_SOCK_DIAG) are unavailable: %1").arg(why)};
}

Error failed(const QString& why) {
    return Error{ErrorKind::Internal, QStringLiteral("sock_diag_failed"),
                 QStringLiteral("the unix socket dump failed: %1").arg(why)};
}

int makeSocket() {
    return ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
}

/// The calling thread's /proc/net/sockstat: bound to the thread's network namespace when opened.
int openSockstat() {
    return ::open("/proc/thread-self/net/sockstat", O_RDONLY | O_CLOEXEC);
}

quint32 u32At(const unsigned char* p) {
    quint32 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

/// Reads the attributes of one unix_diag_msg (rtnetlink-style TLVs, netlink(7)).
void parseAttributes(const unsigned char* at, const unsigned char* end, UnixSocketInfo* info) {
    while (end - at >= 4) {
        quint16 length, type;
        std::memcpy(&length, at, 2);
        std::memcpy(&type, at + 2, 2);
        if (length < 4 || length > end - at)
            return;
        const unsigned char* payload = at + 4;
        const int size = length - 4;
        switch (type) {
        case UNIX_DIAG_PEER:
            if (size >= 4) {
                info->hasPeer = true;
                info->peer = u32At(payload);
            }
            break;
        case UNIX_DIAG_ICONS:
            for (int i = 0; i + 4 <= size; i += 4)
                info->pending.append(u32At(payload + i));
            break;
        case UNIX_DIAG_RQLEN:
            if (size >= int(sizeof(unix_diag_rqlen)))
                info->receiveQueue = u32At(payload);
            break;
        case UNIX_DIAG_MEMINFO:
            if (size >= int(sizeof(quint32)) * (SK_MEMINFO_SNDBUF + 1)) {
                info->sendAlloc = u32At(payload + 4 * SK_MEMINFO_WMEM_ALLOC);
                info->sendBuffer = u32At(payload + 4 * SK_MEMINFO_SNDBUF);
            }
            break;
        case UNIX_DIAG_UID:
            if (size >= 4)
                info->uid = uid_t(u32At(payload));
            break;
        default:
            break;
        }
        at += NLA_ALIGN(length);
    }
}

} // namespace

std::optional<UnixSocketDiag> UnixSocketDiag::open(Error* error) {
    const int fd = makeSocket();
    if (fd < 0) {
        *error = unavailable(QString::fromLocal8Bit(std::strerror(errno)));
        return std::nullopt;
    }
    return UnixSocketDiag(fd, openSockstat());
}

std::optional<UnixSocketDiag> UnixSocketDiag::openIn(int namespaceFd, Error* error) {
    int fd = -1, sockstat = -1, setnsErrno = 0, socketErrno = 0;
    // setns(CLONE_NEWNET) changes only the calling thread (setns(2)); the thread ends right
    // after, so no other code of the agent ever runs in the workspace's namespace.
    std::thread enter([&] {
        if (::setns(namespaceFd, CLONE_NEWNET) != 0) {
            setnsErrno = errno;
            return;
        }
        fd = makeSocket();
        socketErrno = errno;
        sockstat = openSockstat();
    });
    enter.join();
    if (setnsErrno != 0) {
        *error = Error{ErrorKind::PermissionDenied, QStringLiteral("netns_enter_failed"),
                       QStringLiteral("cannot enter the network namespace to list its unix "
                                      "sockets: setns: %1")
                           .arg(QString::fromLocal8Bit(std::strerror(setnsErrno)))};
        return std::nullopt;
    }
    if (fd < 0) {
        *error = unavailable(QString::fromLocal8Bit(std::strerror(socketErrno)));
        if (sockstat >= 0)
            ::close(sockstat);
        return std::nullopt;
    }
    return UnixSocketDiag(fd, sockstat);
}

qint64 UnixSocketDiag::socketsInUse() const {
    if (!m_sockstat.valid())
        return -1;
    char text[128];
    const ssize_t n = ::pread(m_sockstat.get(), text, sizeof text - 1, 0);
    if (n <= 0)
        return -1;
    text[n] = '\0';
    long long used = -1;
    return std::sscanf(text, "sockets: used %lld", &used) == 1 ? used : -1;
}

bool UnixSocketDiag::dump(std::vector<UnixSocketInfo>* out, Error* error) const {
    struct {
        nlmsghdr header;
        unix_diag_req request;
    } message{};
    const quint32 sequence = ++m_sequence;
    message.header.nlmsg_len = sizeof message;
    message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    message.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    message.header.nlmsg_seq = sequence;
    message.request.sdiag_family = AF_UNIX;
    message.request.udiag_states = ~0u;
    message.request.udiag_show = kShow;
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    if (::sendto(m_fd.get(), &message, sizeof message, 0, reinterpret_cast<sockaddr*>(&kernel),
                 sizeof kernel) != ssize_t(sizeof message)) {
        *error =
            failed(QStringLiteral("send: %1").arg(QString::fromLocal8Bit(std::strerror(errno))));
        return false;
    }
    // A dump comes in parts of at most one page each (NLMSG_GOODSIZE), ended by NLMSG_DONE.
    alignas(nlmsghdr) static thread_local unsigned char buffer[64 * 1024];
    for (;;) {
        const ssize_t n = ::recv(m_fd.get(), buffer, sizeof buffer, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            *error = failed(
                n == 0
                    ? QStringLiteral("the dump ended early")
                    : QStringLiteral("recv: %1").arg(QString::fromLocal8Bit(std::strerror(errno))));
            return false;
        }
        for (std::size_t at = 0; at + sizeof(nlmsghdr) <= std::size_t(n);) {
            const auto* h = reinterpret_cast<const nlmsghdr*>(buffer + at);
            if (h->nlmsg_len < sizeof(nlmsghdr) || h->nlmsg_len > std::size_t(n) - at)
                break; // malformed: the rest of this part is skipped
            const unsigned char* body = buffer + at + NLMSG_HDRLEN;
            const unsigned char* end = buffer + at + h->nlmsg_len;
            at += NLMSG_ALIGN(h->nlmsg_len);
            if (h->nlmsg_seq != sequence)
                continue; // an answer to an earlier, abandoned dump
            if (h->nlmsg_type == NLMSG_DONE)
                return true;
            if (h->nlmsg_type == NLMSG_ERROR) {
                int code = 0;
                if (end - body >= int(sizeof code))
                    std::memcpy(&code, body, sizeof code); // nlmsgerr.error, negative errno
                *error = failed(QString::fromLocal8Bit(std::strerror(-code)));
                return false;
            }
            if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
                h->nlmsg_len < NLMSG_LENGTH(sizeof(unix_diag_msg)))
                continue;
            unix_diag_msg m;
            std::memcpy(&m, body, sizeof m);
            UnixSocketInfo info;
            info.inode = m.udiag_ino;
            info.type = m.udiag_type;
            info.state = m.udiag_state;
            info.uid = uid_t(-1); // stays so when the kernel has no UNIX_DIAG_UID (before 5.3)
            parseAttributes(body + NLMSG_ALIGN(sizeof m), end, &info);
            out->push_back(std::move(info));
        }
    }
}

} // namespace runbox::bounds
