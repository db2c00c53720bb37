#include "agent/proxy/WorkspaceSocket.h"

#include <QString>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace runbox::proxy {

namespace {

/// Closes its descriptor at scope exit.
struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0)
            ::close(fd);
    }
};

Error refused(const QByteArray& path, const QString& why) {
    return Error{ErrorKind::PermissionDenied, QStringLiteral("proxy_socket_refused"),
                 QStringLiteral("~/%1 %2").arg(QString::fromLatin1(path), why)};
}

Error notListening(const QByteArray& path, const QString& why) {
    return Error{ErrorKind::UpstreamFailed, QStringLiteral("proxy_not_listening"),
                 QStringLiteral("nothing accepts connections on ~/%1: %2")
                     .arg(QString::fromLatin1(path), why)};
}

QString errnoText(int e) {
    return QString::fromLocal8Bit(std::strerror(e));
}

} // namespace

QByteArray WorkspaceSocket::relativePath(int port) {
    return ".runbox/proxy/" + QByteArray::number(port) + ".sock";
}

int WorkspaceSocket::connect(int homeFd, uid_t uid, int port, Error* error) {
    const QByteArray path = relativePath(port);
    const QByteArray leaf = QByteArray::number(port) + ".sock";
    Fd level; // the directory reached so far (the home itself stays the caller's)
    for (const char* name : {".runbox", "proxy"}) {
        const int from = level.fd >= 0 ? level.fd : homeFd;
        const int next = ::openat(from, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            const int e = errno;
            if (e == ENOENT)
                *error = notListening(path, QStringLiteral("the socket does not exist"));
            else if (e == ENOTDIR || e == ELOOP)
                *error = refused(path, QStringLiteral("is not reached through real directories "
                                                      "(symlinks are not followed)"));
            else
                *error = notListening(path, errnoText(e));
            return -1;
        }
        if (level.fd >= 0)
            ::close(level.fd);
        level.fd = next;
    }
    const int current = level.fd;
    Fd sock{::openat(current, leaf.constData(), O_PATH | O_NOFOLLOW | O_CLOEXEC)};
    if (sock.fd < 0) {
        *error = notListening(path, errno == ENOENT ? QStringLiteral("the socket does not exist")
                                                    : errnoText(errno));
        return -1;
    }
    struct stat st {};
    if (::fstat(sock.fd, &st) != 0) {
        *error = notListening(path, errnoText(errno));
        return -1;
    }
    if (S_ISLNK(st.st_mode)) {
        *error = refused(path, QStringLiteral("is a symbolic link (never followed)"));
        return -1;
    }
    if (!S_ISSOCK(st.st_mode)) {
        *error = refused(path, QStringLiteral("is not a socket"));
        return -1;
    }
    if (st.st_uid != uid) {
        *error = refused(path, QStringLiteral("is owned by uid %1, not by the workspace (uid %2)")
                                   .arg(st.st_uid)
                                   .arg(uid));
        return -1;
    }
    Fd conn{::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)};
    if (conn.fd < 0) {
        *error = Error{ErrorKind::Unavailable, QStringLiteral("proxy_busy"),
                       QStringLiteral("cannot create a socket: %1").arg(errnoText(errno))};
        return -1;
    }
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof(address.sun_path), "/proc/self/fd/%d", sock.fd);
    if (::connect(conn.fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
        const int e = errno;
        if (e == EAGAIN)
            *error = Error{ErrorKind::Unavailable, QStringLiteral("proxy_busy"),
                           QStringLiteral("~/%1 has a full backlog; try again")
                               .arg(QString::fromLatin1(path))};
        else
            *error = notListening(path, errnoText(e));
        return -1;
    }
    ucred peer{};
    socklen_t size = sizeof(peer);
    if (::getsockopt(conn.fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0 || peer.uid != uid) {
        *error = refused(path, QStringLiteral("is served by uid %1, not by the workspace (uid %2)")
                                   .arg(peer.uid)
                                   .arg(uid));
        return -1;
    }
    const int fd = conn.fd;
    conn.fd = -1;
    return fd;
}

} // namespace runbox::proxy
