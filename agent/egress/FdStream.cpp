#include "agent/egress/FdStream.h"

#include <QSocketNotifier>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox::egress {

namespace {
constexpr qsizetype kReadChunkBytes = 256 * 1024;
constexpr int kMaxReadsPerWakeup = 4; // fairness between connections
} // namespace

FdStream::FdStream(int fd, QObject* parent) : QObject(parent) {
    adopt(fd);
}

void FdStream::adopt(int fd) {
    delete m_readNotifier;
    delete m_writeNotifier;
    m_fd = fd;
    const int flags = ::fcntl(m_fd, F_GETFL);
    if (flags >= 0)
        ::fcntl(m_fd, F_SETFL, flags | O_NONBLOCK);
    m_readNotifier = new QSocketNotifier(m_fd, QSocketNotifier::Read, this);
    m_writeNotifier = new QSocketNotifier(m_fd, QSocketNotifier::Write, this);
    m_writeNotifier->setEnabled(false);
    m_readNotifier->setEnabled(m_readEnabled);
    connect(m_readNotifier, &QSocketNotifier::activated, this, &FdStream::onReadable);
    connect(m_writeNotifier, &QSocketNotifier::activated, this, &FdStream::onWritable);
}

namespace {

/// A connected stream socket of a family the gateway speaks over (not a listener, file, pipe).
bool isConnectedStreamSocket(int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode))
        return false;
    int type = 0, domain = 0, listening = 0;
    socklen_t length = sizeof type;
    if (::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_STREAM)
        return false;
    length = sizeof domain;
    if (::getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &length) != 0 ||
        (domain != AF_UNIX && domain != AF_INET && domain != AF_INET6))
        return false;
    length = sizeof listening;
    if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) != 0 || listening)
        return false;
    sockaddr_storage peer{};
    length = sizeof peer;
    return ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &length) == 0;
}

} // namespace

bool FdStream::readHandOver() {
    m_handOverPossible = false;
    QByteArray data(kReadChunkBytes, Qt::Uninitialized);
    iovec iov{data.data(), size_t(data.size())};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 8)];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n;
    do {
        n = ::recvmsg(m_fd, &msg, MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        m_handOverPossible = true; // spurious wake-up: still the first read
        return false;
    }
    if (n < 0) {
        fail(errno);
        return false;
    }
    QList<int> passed;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; ++i) {
            int fd;
            std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
            passed.append(fd);
        }
    }
    const bool marker =
        n == 1 && data[0] == '\0' && passed.size() == 1 && !(msg.msg_flags & MSG_CTRUNC);
    if (marker && isConnectedStreamSocket(passed.first())) {
        ::close(m_fd); // the bridge's connection has done its job
        adopt(passed.first());
        return false; // the new socket's notifier reports its bytes
    }
    for (const int fd : std::as_const(passed))
        ::close(fd);
    if (!passed.isEmpty() || (msg.msg_flags & MSG_CTRUNC)) {
        const QString message =
            QStringLiteral("handed-over descriptor is not a connected stream socket");
        close();
        Q_EMIT failed(message);
        return false;
    }
    if (n == 0) {
        m_readEof = true;
        m_readNotifier->setEnabled(false);
        Q_EMIT readEof();
        return false;
    }
    data.truncate(qsizetype(n));
    Q_EMIT received(data); // a plain client: its first bytes
    return m_fd >= 0 && n == kReadChunkBytes;
}

FdStream::~FdStream() {
    close();
}

void FdStream::close() {
    if (m_fd < 0)
        return;
    m_readNotifier->setEnabled(false);
    m_writeNotifier->setEnabled(false);
    ::close(m_fd);
    m_fd = -1;
    m_queue.clear();
    m_pending = 0;
}

RelaySide FdStream::release() {
    RelaySide side;
    if (m_fd < 0)
        return side;
    side.fd = m_fd;
    for (const QByteArray& chunk : m_queue)
        side.queued += chunk;
    side.queued.remove(0, m_headOffset);
    side.readEof = m_readEof;
    side.writeShutDown = m_writeShutDown;
    side.shutdownRequested = m_shutdownRequested;
    m_readNotifier->setEnabled(false);
    m_writeNotifier->setEnabled(false);
    m_fd = -1;
    m_queue.clear();
    m_headOffset = 0;
    m_pending = 0;
    return side;
}

void FdStream::write(const QByteArray& data) {
    if (m_fd < 0 || data.isEmpty() || m_shutdownRequested)
        return;
    m_queue.push_back(data);
    m_pending += data.size();
    if (!m_writeNotifier->isEnabled())
        flush();
}

void FdStream::shutdownWrite() {
    if (m_fd < 0 || m_shutdownRequested)
        return;
    m_shutdownRequested = true;
    if (m_queue.empty()) {
        ::shutdown(m_fd, SHUT_WR);
        m_writeShutDown = true;
    }
}

void FdStream::setReadEnabled(bool enabled) {
    m_readEnabled = enabled;
    if (m_fd >= 0)
        m_readNotifier->setEnabled(enabled && !m_readEof);
}

void FdStream::onReadable() {
    if (m_handOverPossible && m_fd >= 0 && m_readEnabled && !m_readEof && !readHandOver())
        return;
    for (int i = 0; i < kMaxReadsPerWakeup && m_fd >= 0 && m_readEnabled && !m_readEof; ++i) {
        // Read straight into the array that travels on: no copy between sockets.
        QByteArray data(kReadChunkBytes, Qt::Uninitialized);
        const ssize_t n = ::recv(m_fd, data.data(), size_t(data.size()), 0);
        if (n > 0) {
            data.truncate(qsizetype(n));
            Q_EMIT received(data);
            if (n < kReadChunkBytes)
                return;
            continue;
        }
        if (n == 0) {
            m_readEof = true;
            m_readNotifier->setEnabled(false);
            Q_EMIT readEof();
            return;
        }
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            fail(errno);
        return;
    }
}

void FdStream::onWritable() {
    flush();
}

void FdStream::flush() {
    while (m_fd >= 0 && !m_queue.empty()) {
        const QByteArray& head = m_queue.front();
        const ssize_t n = ::send(m_fd, head.constData() + m_headOffset,
                                 size_t(head.size() - m_headOffset), MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                m_writeNotifier->setEnabled(true);
                return;
            }
            fail(errno);
            return;
        }
        m_pending -= n;
        m_headOffset += n;
        if (m_headOffset == head.size()) {
            m_queue.pop_front();
            m_headOffset = 0;
        }
    }
    if (m_fd < 0)
        return;
    m_writeNotifier->setEnabled(false);
    if (m_shutdownRequested && !m_writeShutDown) {
        ::shutdown(m_fd, SHUT_WR);
        m_writeShutDown = true;
    }
    Q_EMIT drained();
}

void FdStream::fail(int error) {
    const QString message = QString::fromLocal8Bit(std::strerror(error));
    close();
    Q_EMIT failed(message);
}

} // namespace runbox::egress
