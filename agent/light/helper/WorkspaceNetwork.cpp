#include "agent/light/helper/WorkspaceNetwork.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace runbox::light {

namespace {

int failWith(std::string* why, const char* what) {
    const int error = errno;
    if (why)
        *why = std::string(what) + ": " + std::strerror(error);
    errno = error;
    return -1;
}

/// SIOCGIFFLAGS + SIOCSIFFLAGS IFF_UP on "lo" (netdevice(7)).
bool bringLoopbackUp(std::string* why) {
    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        failWith(why, "socket for the loopback ioctl");
        return false;
    }
    ifreq request{};
    std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
    bool ok = ::ioctl(fd, SIOCGIFFLAGS, &request) == 0;
    if (ok && !(request.ifr_flags & IFF_UP)) {
        request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP | IFF_RUNNING);
        ok = ::ioctl(fd, SIOCSIFFLAGS, &request) == 0;
    }
    if (!ok)
        failWith(why, "bring lo up (SIOCSIFFLAGS)");
    const int error = errno;
    ::close(fd);
    errno = error;
    return ok;
}

} // namespace

int WorkspaceNetwork::enterPrivateNetwork(std::uint16_t port, std::string* why) {
    if (::unshare(CLONE_NEWNET) != 0)
        return failWith(why, "unshare(CLONE_NEWNET)");
    if (!bringLoopbackUp(why))
        return -1;
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener < 0)
        return failWith(why, "socket for the gateway listener");
    const int one = 1;
    ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0 ||
        ::listen(listener, 128) != 0) {
        failWith(why, "listen on the gateway address 127.0.0.1");
        const int error = errno;
        ::close(listener);
        errno = error;
        return -1;
    }
    return listener;
}

} // namespace runbox::light
