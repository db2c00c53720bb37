#include "agent/egress/FdStream.h"

#include <QSocketNotifier>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace runbox::egress {

namespace {
constexpr qsizetype kReadChunkBytes = 256 * 1024;
constexpr int kMaxReadsPerWakeup = 4; // fairness between connections
} // namespace

FdStream::FdStream(int fd, QObject* parent) : QObject(parent), m_fd(fd) {
    const int flags = ::fcntl(m_fd, F_GETFL);
    if (flags >= 0)
        ::fcntl(m_fd, F_SETFL, flags | O_NONBLOCK);
    m_readNotifier = new QSocketNotifier(m_fd, QSocketNotifier::Read, this);
    m_writeNotifier = new QSocketNotifier(m_fd, QSocketNotifier::Write, this);
    m_writeNotifier->setEnabled(false);
    connect(m_readNotifier, &QSocketNotifier::activated, this, &FdStream::onReadable);
    connect(m_writeNotifier, &QSocketNotifier::activated, this, &FdStream::onWritable);
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
