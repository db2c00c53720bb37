// light_attack's network attacks (test_light_network): every way a light workspace could create a
// socket or reach a host listener without plain TCP. Same output convention as light_attack.cpp:
// "ok[ data]" and exit 0, or "errno=NAME" and exit 1.
//   mptcp-connect PORT | mptcp-listen | sctp-connect PORT | udp-send PORT | raw-send PORT
//   packet | netlink | tcp-flags-connect PORT | tcp-listen | tcp-fastopen PORT
//   uring-socket PORT (IORING_OP_SOCKET, IPPROTO_MPTCP, then connect) | i386-getpid
#include "light_attack_net.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/io_uring.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <string>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

constexpr int kMptcp = 262; // IPPROTO_MPTCP, include/uapi/linux/in.h
constexpr int kSctp = 132;  // IPPROTO_SCTP

int failed() {
    std::printf("errno=%s\n", strerrorname_np(errno));
    return 1;
}

int ok(const char* data = "") {
    std::printf("ok%s%s\n", *data ? " " : "", data);
    return 0;
}

sockaddr_in loopback(int port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return address;
}

/// socket(AF_INET, @p type, @p protocol), then connect to 127.0.0.1:@p port.
int connectWith(int type, int protocol, int port) {
    const int fd = ::socket(AF_INET, type, protocol);
    if (fd < 0)
        return failed();
    const sockaddr_in address = loopback(port);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0)
        return failed();
    [[maybe_unused]] const ssize_t sent = ::write(fd, "x", 1);
    return ok();
}

/// socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP), as runtimes open
/// them, then a blocking connect.
int flaggedConnect(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
    if (fd < 0 || ::fcntl(fd, F_SETFL, 0) != 0)
        return failed();
    const sockaddr_in address = loopback(port);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0)
        return failed();
    return ok();
}

int mptcpListen() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, kMptcp);
    if (fd < 0)
        return failed();
    const sockaddr_in address = loopback(0);
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0 ||
        ::listen(fd, 4) != 0)
        return failed();
    return ok();
}

/// listen(2) on a TCP socket that was never bound (the kernel picks a port).
int tcpListen() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || ::listen(fd, 4) != 0)
        return failed();
    sockaddr_in address{};
    socklen_t length = sizeof(address);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    return ok(std::to_string(ntohs(address.sin_port)).c_str());
}

/// TCP Fast Open: sendto(MSG_FASTOPEN) connects without connect(2).
int tcpFastOpen(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return failed();
    const sockaddr_in address = loopback(port);
    if (::sendto(fd, "x", 1, MSG_FASTOPEN, reinterpret_cast<const sockaddr*>(&address),
                 sizeof(address)) < 0)
        return failed();
    return ok();
}

int udpSend(int port) {
    const int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0)
        return failed();
    const sockaddr_in address = loopback(port);
    if (::sendto(fd, "x", 1, 0, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 1)
        return failed();
    return ok();
}

/// A raw IPPROTO_UDP socket: the datagram's UDP header is ours, the kernel adds the IP header.
int rawSend(int port) {
    const int fd = ::socket(AF_INET, SOCK_RAW, IPPROTO_UDP);
    if (fd < 0)
        return failed();
    struct {
        udphdr header;
        char payload[1];
    } datagram{};
    datagram.header.source = htons(9);
    datagram.header.dest = htons(static_cast<uint16_t>(port));
    datagram.header.len = htons(sizeof(datagram));
    datagram.payload[0] = 'x';
    const sockaddr_in address = loopback(port);
    if (::sendto(fd, &datagram, sizeof(datagram), 0, reinterpret_cast<const sockaddr*>(&address),
                 sizeof(address)) < 0)
        return failed();
    return ok();
}

int justSocket(int family, int type, int protocol) {
    return ::socket(family, type, protocol) >= 0 ? ok() : failed();
}

/// io_uring without liburing: one IORING_OP_SOCKET (kernel ≥ 5.19) for an MPTCP socket, then a
/// plain connect(2) on the descriptor it made.
int uringSocket(int port) {
    io_uring_params params{};
    const int ring = static_cast<int>(::syscall(SYS_io_uring_setup, 4, &params));
    if (ring < 0)
        return failed();
    const std::size_t sqSize = params.sq_off.array + params.sq_entries * sizeof(unsigned);
    const std::size_t cqSize = params.cq_off.cqes + params.cq_entries * sizeof(io_uring_cqe);
    const std::size_t ringSize = sqSize > cqSize ? sqSize : cqSize;
    auto* rings = static_cast<char*>(::mmap(nullptr, ringSize, PROT_READ | PROT_WRITE,
                                            MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING));
    auto* sqes = static_cast<io_uring_sqe*>(
        ::mmap(nullptr, params.sq_entries * sizeof(io_uring_sqe), PROT_READ | PROT_WRITE,
               MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES));
    if (rings == MAP_FAILED || sqes == MAP_FAILED || !(params.features & IORING_FEAT_SINGLE_MMAP))
        return failed();
    io_uring_sqe& sqe = sqes[0];
    std::memset(&sqe, 0, sizeof(sqe));
    sqe.opcode = IORING_OP_SOCKET;
    sqe.fd = AF_INET;
    sqe.off = SOCK_STREAM;
    sqe.len = kMptcp;
    auto* array = reinterpret_cast<unsigned*>(rings + params.sq_off.array);
    auto* tail = reinterpret_cast<unsigned*>(rings + params.sq_off.tail);
    array[*tail & *reinterpret_cast<unsigned*>(rings + params.sq_off.ring_mask)] = 0;
    __atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
    if (::syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, nullptr, 0) < 0)
        return failed();
    auto* cqHead = reinterpret_cast<unsigned*>(rings + params.cq_off.head);
    auto* cqes = reinterpret_cast<io_uring_cqe*>(rings + params.cq_off.cqes);
    const int res =
        cqes[*cqHead & *reinterpret_cast<unsigned*>(rings + params.cq_off.ring_mask)].res;
    if (res < 0) {
        errno = -res;
        return failed();
    }
    const sockaddr_in address = loopback(port);
    if (::connect(res, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0)
        return failed();
    return ok("connected");
}

/// getpid through the i386 ABI (int 0x80, __NR_getpid = 20 there).
int i386Getpid() {
#if defined(__x86_64__)
    long result = 20;
    __asm__ volatile("int $0x80" : "+a"(result) : : "memory", "r8", "r9", "r10", "r11");
    if (result < 0) {
        errno = static_cast<int>(-result);
        return failed();
    }
    return ok(std::to_string(result).c_str());
#else
    errno = ENOSYS;
    return failed();
#endif
}

} // namespace

int netAttack(const char* command, const char* arg) {
    const int port = arg ? std::atoi(arg) : 0;
    if (!std::strcmp(command, "mptcp-connect"))
        return connectWith(SOCK_STREAM, kMptcp, port);
    if (!std::strcmp(command, "mptcp-listen"))
        return mptcpListen();
    if (!std::strcmp(command, "sctp-connect"))
        return connectWith(SOCK_STREAM, kSctp, port);
    if (!std::strcmp(command, "tcp-flags-connect"))
        return flaggedConnect(port);
    if (!std::strcmp(command, "tcp-listen"))
        return tcpListen();
    if (!std::strcmp(command, "tcp-fastopen"))
        return tcpFastOpen(port);
    if (!std::strcmp(command, "udp-send"))
        return udpSend(port);
    if (!std::strcmp(command, "raw-send"))
        return rawSend(port);
    if (!std::strcmp(command, "packet"))
        return justSocket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
    if (!std::strcmp(command, "netlink"))
        return justSocket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
    if (!std::strcmp(command, "uring-socket"))
        return uringSocket(port);
    if (!std::strcmp(command, "i386-getpid"))
        return i386Getpid();
    return -1;
}
