#pragma once

// The benchmark's upstream HTTP server (shared by bench_egress and bench_egress_agent).

#include <QByteArray>
#include <QtGlobal>

#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace {

/// Raw HTTP server on 127.0.0.1, one thread per connection: GET /blob sends @p blobBytes,
/// anything else a 2-byte body; always Connection: close.
class UpstreamServer final {
public:
    explicit UpstreamServer(qint64 blobBytes) : m_blobBytes(blobBytes) {
        m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
        ::listen(m_fd, 128);
        socklen_t length = sizeof address;
        ::getsockname(m_fd, reinterpret_cast<sockaddr*>(&address), &length);
        m_port = ntohs(address.sin_port);
        std::thread([this] { acceptLoop(); }).detach();
    }
    quint16 port() const { return m_port; }

private:
    void acceptLoop() {
        for (;;) {
            const int client = ::accept(m_fd, nullptr, nullptr);
            if (client >= 0)
                std::thread([this, client] { serve(client); }).detach();
        }
    }
    void serve(int client) {
        QByteArray head;
        char buffer[4096];
        while (!head.contains("\r\n\r\n")) {
            const ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
            if (n <= 0) {
                ::close(client);
                return;
            }
            head.append(buffer, n);
        }
        const bool blob = head.startsWith("GET /blob ");
        const qint64 size = blob ? m_blobBytes : 2;
        const QByteArray responseHead =
            "HTTP/1.1 200 OK\r\nContent-Length: " + QByteArray::number(size) +
            "\r\nConnection: close\r\n\r\n";
        sendAll(client, responseHead.constData(), responseHead.size());
        static const QByteArray chunk(1024 * 1024, 'x');
        qint64 left = size;
        while (left > 0) {
            const qint64 n = qMin<qint64>(left, chunk.size());
            if (!sendAll(client, chunk.constData(), n))
                break;
            left -= n;
        }
        ::shutdown(client, SHUT_WR);
        while (::recv(client, buffer, sizeof buffer, 0) > 0) {
        }
        ::close(client);
    }
    static bool sendAll(int fd, const char* data, qint64 size) {
        while (size > 0) {
            const ssize_t n = ::send(fd, data, size_t(size), MSG_NOSIGNAL);
            if (n <= 0)
                return false;
            data += n;
            size -= n;
        }
        return true;
    }

    qint64 m_blobBytes;
    int m_fd = -1;
    quint16 m_port = 0;
};

} // namespace
