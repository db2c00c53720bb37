// light_attack: the probe a light workspace runs against its neighbours and the host in
// test_light_host_isolation and test_light_workspace_isolation. Plain libc so it runs inside the
// Landlock domain from the workspace home. Prints "ok[ data]" and exits 0 on success, or
// "errno=NAME" and exits 1.
//   read PATH | write PATH | bind-tcp PORT | bind-udp PORT | connect-tcp PORT
//   abstract-serve NAME | abstract-connect NAME | connect-unix PATH | kill PID SIG | ptrace PID
//   and the network attacks of light_attack_net.cpp (test_light_network).
#include "light_attack_net.h"

#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

int failed() {
    std::printf("errno=%s\n", strerrorname_np(errno));
    return 1;
}

int ok(const char* data = "") {
    std::printf("ok%s%s\n", *data ? " " : "", data);
    return 0;
}

int inetSocket(int type, int port, bool bindIt) {
    const int fd = ::socket(AF_INET, type, 0);
    if (fd < 0)
        return failed();
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const int result = bindIt
                           ? ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address))
                           : ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
    return result == 0 ? ok() : failed();
}

socklen_t abstractAddress(const char* name, sockaddr_un* address) {
    std::memset(address, 0, sizeof(*address));
    address->sun_family = AF_UNIX;
    const std::size_t length = std::strlen(name);
    std::memcpy(address->sun_path + 1, name, length); // leading NUL: abstract namespace
    return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + length);
}

int abstractServe(const char* name) {
    sockaddr_un address;
    const socklen_t length = abstractAddress(name, &address);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
        ::listen(fd, 16) != 0)
        return failed();
    ::alarm(120); // never outlive a broken test
    for (;;) {
        const int client = ::accept(fd, nullptr, nullptr);
        if (client < 0)
            continue;
        [[maybe_unused]] const ssize_t sent = ::write(client, "pong", 4);
        ::close(client);
    }
}

int abstractConnect(const char* name) {
    sockaddr_un address;
    const socklen_t length = abstractAddress(name, &address);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&address), length) != 0)
        return failed();
    char reply[8] = {};
    if (::read(fd, reply, 4) != 4)
        return failed();
    return ok(reply);
}

int unixConnect(const char* path) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path, sizeof(address.sun_path) - 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0)
        return failed();
    return ok();
}

int readFile(const char* path) {
    const int fd = ::open(path, O_RDONLY);
    if (fd < 0)
        return failed();
    char buffer[4096];
    const ssize_t got = ::read(fd, buffer, sizeof(buffer) - 1);
    if (got < 0)
        return failed();
    for (ssize_t i = 0; i < got; ++i) {
        if (buffer[i] == '\0')
            buffer[i] = '\n';
    }
    buffer[got] = '\0';
    return ok(buffer);
}

int ptraceAttach(pid_t pid) {
    if (::ptrace(PTRACE_ATTACH, pid, nullptr, nullptr) != 0)
        return failed();
    ::waitpid(pid, nullptr, __WALL);
    ::ptrace(PTRACE_DETACH, pid, nullptr, nullptr);
    return ok();
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: light_attack COMMAND ARG...\n");
        return 2;
    }
    if (const int code = netAttack(argv[1], argc > 2 ? argv[2] : nullptr); code >= 0)
        return code;
    if (argc < 3) {
        std::fprintf(stderr, "usage: light_attack COMMAND ARG...\n");
        return 2;
    }
    const char* command = argv[1];
    const char* arg = argv[2];
    if (!std::strcmp(command, "read"))
        return readFile(arg);
    if (!std::strcmp(command, "write")) {
        const int fd = ::open(arg, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        return fd >= 0 && ::write(fd, "x", 1) == 1 ? ok() : failed();
    }
    if (!std::strcmp(command, "bind-tcp"))
        return inetSocket(SOCK_STREAM, std::atoi(arg), true);
    if (!std::strcmp(command, "bind-udp"))
        return inetSocket(SOCK_DGRAM, std::atoi(arg), true);
    if (!std::strcmp(command, "connect-tcp"))
        return inetSocket(SOCK_STREAM, std::atoi(arg), false);
    if (!std::strcmp(command, "abstract-serve"))
        return abstractServe(arg);
    if (!std::strcmp(command, "connect-unix"))
        return unixConnect(arg);
    if (!std::strcmp(command, "abstract-connect"))
        return abstractConnect(arg);
    if (!std::strcmp(command, "kill") && argc > 3)
        return ::kill(std::atoi(arg), std::atoi(argv[3])) == 0 ? ok() : failed();
    if (!std::strcmp(command, "ptrace"))
        return ptraceAttach(std::atoi(arg));
    std::fprintf(stderr, "light_attack: unknown command %s\n", command);
    return 2;
}
