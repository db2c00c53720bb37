#include "agent/egress/UpstreamDialer.h"

#include <QSocketNotifier>
#include <QTimer>

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

namespace runbox::egress {

UpstreamDialer::UpstreamDialer(const QList<QHostAddress>& addresses, quint16 port,
                               int connectTimeoutMs, QObject* parent)
    : QObject(parent), m_addresses(addresses), m_port(port), m_connectTimeoutMs(connectTimeoutMs) {
    m_timer = new QTimer(this);
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, &UpstreamDialer::onTimeout);
}

UpstreamDialer::~UpstreamDialer() {
    abandonCurrent();
}

void UpstreamDialer::start() {
    QTimer::singleShot(0, this, &UpstreamDialer::tryNext);
}

void UpstreamDialer::abandonCurrent() {
    m_timer->stop();
    delete m_notifier;
    m_notifier = nullptr;
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
}

void UpstreamDialer::tryNext() {
    abandonCurrent();
    while (m_next < m_addresses.size()) {
        const QHostAddress address = m_addresses.at(m_next++);
        sockaddr_storage storage{};
        socklen_t length = 0;
        if (address.protocol() == QAbstractSocket::IPv4Protocol) {
            auto* in = reinterpret_cast<sockaddr_in*>(&storage);
            in->sin_family = AF_INET;
            in->sin_port = htons(m_port);
            in->sin_addr.s_addr = htonl(address.toIPv4Address());
            length = sizeof(sockaddr_in);
        } else {
            auto* in6 = reinterpret_cast<sockaddr_in6*>(&storage);
            in6->sin6_family = AF_INET6;
            in6->sin6_port = htons(m_port);
            const Q_IPV6ADDR bytes = address.toIPv6Address();
            std::memcpy(&in6->sin6_addr, bytes.c, 16);
            in6->sin6_scope_id = address.scopeId().toUInt();
            length = sizeof(sockaddr_in6);
        }
        m_fd = ::socket(storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (m_fd < 0) {
            m_lastError = QString::fromLocal8Bit(std::strerror(errno));
            continue;
        }
        const int one = 1;
        ::setsockopt(m_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        int rc;
        do {
            rc = ::connect(m_fd, reinterpret_cast<sockaddr*>(&storage), length);
        } while (rc < 0 && errno == EINTR);
        if (rc == 0 || errno == EINPROGRESS) {
            m_notifier = new QSocketNotifier(m_fd, QSocketNotifier::Write, this);
            connect(m_notifier, &QSocketNotifier::activated, this, &UpstreamDialer::onWritable);
            m_timer->start(m_connectTimeoutMs);
            return;
        }
        m_lastError = QStringLiteral("%1: %2").arg(address.toString(),
                                                   QString::fromLocal8Bit(std::strerror(errno)));
        m_lastTimedOut = false;
        abandonCurrent();
    }
    Q_EMIT failed(m_lastError.isEmpty() ? QStringLiteral("no address to dial") : m_lastError,
                  m_lastTimedOut);
}

void UpstreamDialer::onWritable() {
    int error = 0;
    socklen_t length = sizeof error;
    if (::getsockopt(m_fd, SOL_SOCKET, SO_ERROR, &error, &length) < 0)
        error = errno;
    const QHostAddress address = m_addresses.at(m_next - 1);
    if (error != 0) {
        m_lastError = QStringLiteral("%1: %2").arg(address.toString(),
                                                   QString::fromLocal8Bit(std::strerror(error)));
        m_lastTimedOut = false;
        // Not from inside the notifier's own signal: it is deleted by abandonCurrent().
        QTimer::singleShot(0, this, &UpstreamDialer::tryNext);
        m_notifier->setEnabled(false);
        m_timer->stop();
        return;
    }
    m_timer->stop();
    m_notifier->setEnabled(false);
    m_notifier->deleteLater();
    m_notifier = nullptr;
    const int fd = m_fd;
    m_fd = -1;
    Q_EMIT connected(fd, address);
}

void UpstreamDialer::onTimeout() {
    const QHostAddress address = m_addresses.at(m_next - 1);
    m_lastError = QStringLiteral("%1: connect timed out after %2 ms")
                      .arg(address.toString())
                      .arg(m_connectTimeoutMs);
    m_lastTimedOut = true;
    tryNext();
}

} // namespace runbox::egress
