#include "agent/light/helper/SupervisorProtocol.h"

#include <cerrno>
#include <cstring>
#include <sys/socket.h>
#include <unistd.h>

namespace runbox::light::wire {

void copyString(char* out, std::size_t capacity, const std::string& text) {
    if (capacity == 0)
        return;
    const std::size_t n = text.size() < capacity - 1 ? text.size() : capacity - 1;
    std::memcpy(out, text.data(), n);
    out[n] = '\0';
}

bool sendMessage(int socket, const void* data, std::size_t size, const int* fds, int fdCount) {
    iovec iov{const_cast<void*>(data), size};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
    if (fdCount > 0) {
        if (fdCount > kMaxFds) {
            errno = EINVAL;
            return false;
        }
        msg.msg_control = control;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * fdCount);
        cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
        cmsg->cmsg_level = SOL_SOCKET;
        cmsg->cmsg_type = SCM_RIGHTS;
        cmsg->cmsg_len = CMSG_LEN(sizeof(int) * fdCount);
        std::memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * fdCount);
    }
    for (;;) {
        const ssize_t sent = ::sendmsg(socket, &msg, MSG_NOSIGNAL);
        if (sent == static_cast<ssize_t>(size))
            return true;
        if (sent < 0 && errno == EINTR)
            continue;
        if (sent >= 0)
            errno = EMSGSIZE;
        return false;
    }
}

long receiveMessage(int socket, void* buffer, std::size_t capacity, int* fds, int* fdCount,
                    int flags) {
    *fdCount = 0;
    iovec iov{buffer, capacity};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * (kMaxFds + 2))] = {};
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    ssize_t got;
    do {
        got = ::recvmsg(socket, &msg, MSG_CMSG_CLOEXEC | flags);
    } while (got < 0 && errno == EINTR);
    if (got < 0)
        return -1;
    for (cmsghdr* cmsg = CMSG_FIRSTHDR(&msg); cmsg; cmsg = CMSG_NXTHDR(&msg, cmsg)) {
        if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS)
            continue;
        const std::size_t count = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (std::size_t i = 0; i < count; ++i) {
            int fd;
            std::memcpy(&fd, CMSG_DATA(cmsg) + i * sizeof(int), sizeof(int));
            if (*fdCount < kMaxFds)
                fds[(*fdCount)++] = fd;
            else
                ::close(fd);
        }
    }
    if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
        for (int i = 0; i < *fdCount; ++i)
            ::close(fds[i]);
        *fdCount = 0;
        errno = EMSGSIZE;
        return -1;
    }
    return got;
}

bool readHeader(const char* data, std::size_t size, int* fds, int fdCount, Header* header) {
    if (size < sizeof(Header)) {
        for (int i = 0; i < fdCount; ++i)
            ::close(fds[i]);
        return false;
    }
    std::memcpy(header, data, sizeof(Header));
    return true;
}

} // namespace runbox::light::wire
