#pragma once

// Test doubles and servers shared by the egress tests (header-only).

#include "agent/egress/Resolver.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QHash>
#include <QHostAddress>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <functional>
#include <mutex>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

namespace runbox::egress::testing {

/// A resolver that answers from a table (asynchronously, like the real one) and counts lookups.
class FakeResolver final : public Resolver {
public:
    QHash<QString, QList<QHostAddress>> table;
    QHash<QString, int> lookups;

    void map(const QString& name, const QStringList& addresses) {
        QList<QHostAddress> list;
        for (const QString& a : addresses)
            list.append(QHostAddress(a));
        table.insert(name, list);
    }
    void resolve(const QString& host, QObject* context, Callback done) override {
        lookups[host] += 1;
        ResolveResult result;
        if (table.contains(host))
            result.addresses = table.value(host);
        else
            result.error = QStringLiteral("Host not found");
        QTimer::singleShot(0, context, [done, result] { done(result); });
    }
    int totalLookups() const {
        int n = 0;
        for (int v : lookups)
            n += v;
        return n;
    }
};

/// A TCP server on 127.0.0.1 that counts every connection it accepts (the canary) and answers
/// each with a small HTTP response once it has the request head (and Content-Length body).
class CanaryHttpServer final : public QObject {
public:
    int connections = 0;
    QList<QByteArray> requests;
    QByteArray responseBody = "hello";

    CanaryHttpServer() {
        QObject::connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection()) {
                ++connections;
                requests.append(QByteArray());
                const qsizetype index = requests.size() - 1;
                QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket, index] {
                    requests[index] += socket->readAll();
                    const QByteArray& r = requests[index];
                    const qsizetype end = r.indexOf("\r\n\r\n");
                    if (end < 0 || socket->property("answered").toBool())
                        return;
                    const qsizetype lengthAt = r.toLower().indexOf("content-length:");
                    qsizetype need = 0;
                    if (lengthAt >= 0 && lengthAt < end)
                        need = r.mid(lengthAt + 15, r.indexOf("\r\n", lengthAt) - lengthAt - 15)
                                   .trimmed()
                                   .toLongLong();
                    const bool chunked = r.toLower().contains("transfer-encoding: chunked");
                    if (chunked ? !r.endsWith("0\r\n\r\n") : r.size() - end - 4 < need)
                        return;
                    socket->setProperty("answered", true);
                    socket->write("HTTP/1.1 200 OK\r\nContent-Length: " +
                                  QByteArray::number(responseBody.size()) +
                                  "\r\nConnection: close\r\n\r\n" + responseBody);
                    socket->disconnectFromHost();
                });
                QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
        m_server.listen(QHostAddress::LocalHost, 0);
    }
    quint16 port() const { return m_server.serverPort(); }
    void reset() {
        connections = 0;
        requests.clear();
    }

private:
    QTcpServer m_server;
};

/// Runs @p work on a thread while this thread keeps serving its event loop (the gateway lives
/// here). Returns false if it did not finish within @p timeoutMs.
inline bool runBeside(const std::function<void()>& work, int timeoutMs = 20000) {
    std::atomic<bool> done{false};
    std::thread thread([&] {
        work();
        done = true;
    });
    QDeadlineTimer deadline(timeoutMs);
    while (!done && !deadline.hasExpired())
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    if (!done) {
        thread.detach(); // the test fails; do not hang the whole binary
        return false;
    }
    thread.join();
    return true;
}

/// Connects a blocking stream socket to the unix socket at @p path; the descriptor, or -1.
inline int connectUnix(const QString& path) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const QByteArray native = path.toLocal8Bit();
    std::memcpy(address.sun_path, native.constData(), size_t(native.size()));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) < 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

/// Sends @p request on the connected stream socket @p fd, half-closes if asked, and reads until
/// EOF (10 s of silence at most). Leaves @p fd open.
inline QByteArray exchangeOn(int fd, const QByteArray& request, bool halfClose = true) {
    qsizetype sent = 0;
    while (sent < request.size()) {
        const ssize_t n =
            ::send(fd, request.constData() + sent, size_t(request.size() - sent), MSG_NOSIGNAL);
        if (n <= 0)
            break;
        sent += n;
    }
    if (halfClose)
        ::shutdown(fd, SHUT_WR);
    QByteArray response;
    char buffer[65536];
    for (;;) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 10000) <= 0)
            break;
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0)
            break;
        response.append(buffer, n);
    }
    return response;
}

/// Blocking client: connects to the unix socket @p path, sends @p request, half-closes if
/// asked, and reads until EOF (10 s limit). Meant to run inside runBeside().
inline QByteArray unixExchange(const QString& path, const QByteArray& request,
                               bool halfClose = true) {
    const int fd = connectUnix(path);
    if (fd < 0)
        return "connect failed";
    const QByteArray response = exchangeOn(fd, request, halfClose);
    ::close(fd);
    return response;
}

/// A raw stream server run on its own thread, for one connection at a time: reads
/// until the client half-closes, then answers "ECHO:" + everything read and closes. Proves that
/// a half-close travelled through, which Qt's sockets cannot show.
class HalfCloseEchoServer final {
public:
    std::atomic<int> connections{0};

    /// TCP on 127.0.0.1 (ephemeral port), or a unix socket at @p unixPath when given.
    explicit HalfCloseEchoServer(const QString& unixPath = {}) {
        if (unixPath.isEmpty()) {
            m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            sockaddr_in address{};
            address.sin_family = AF_INET;
            address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            const int one = 1;
            ::setsockopt(m_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
            ::bind(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
            socklen_t length = sizeof address;
            ::getsockname(m_fd, reinterpret_cast<sockaddr*>(&address), &length);
            m_port = ntohs(address.sin_port);
        } else {
            m_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            sockaddr_un address{};
            address.sun_family = AF_UNIX;
            const QByteArray native = unixPath.toLocal8Bit();
            std::memcpy(address.sun_path, native.constData(), size_t(native.size()));
            ::bind(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
        }
        ::listen(m_fd, 16);
        m_thread = std::thread([this] { serve(); });
    }
    ~HalfCloseEchoServer() {
        m_stop = true;
        ::shutdown(m_fd, SHUT_RDWR);
        m_thread.join();
        ::close(m_fd);
    }
    quint16 port() const { return m_port; }

private:
    void serve() {
        while (!m_stop) {
            pollfd p{m_fd, POLLIN, 0};
            if (::poll(&p, 1, 100) <= 0)
                continue;
            const int client = ::accept(m_fd, nullptr, nullptr);
            if (client < 0)
                continue;
            ++connections;
            QByteArray data = "ECHO:";
            char buffer[65536];
            for (;;) {
                const ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
                if (n <= 0)
                    break;
                data.append(buffer, n);
            }
            qsizetype sent = 0;
            while (sent < data.size()) {
                const ssize_t n = ::send(client, data.constData() + sent,
                                         size_t(data.size() - sent), MSG_NOSIGNAL);
                if (n <= 0)
                    break;
                sent += n;
            }
            ::close(client);
        }
    }

    int m_fd = -1;
    quint16 m_port = 0;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

} // namespace runbox::egress::testing
