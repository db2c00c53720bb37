// The agent's systemd readiness (docs/service.md "Readiness", agent/service/ServiceNotifier):
// with NOTIFY_SOCKET set, the real agent sends READY=1 (with a STATUS= naming its URL and the
// sandbox conclusion) only once its listener answers, exactly once, and STOPPING=1 when it is
// told to stop. The socket is a real AF_UNIX datagram socket, read on a thread of its own that
// checks GET /health the moment READY=1 arrives.
#include "shared/ApiClient.h"
#include "support/AgentProcess.h"

#include <QDeadlineTimer>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <cstring>
#include <mutex>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

/// GET /health on 127.0.0.1:@p port with blocking sockets (2 s bound): true on a 200.
bool healthAnswers(quint16 port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    timeval tv{2, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool ok = false;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
        const char request[] =
            "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
        char reply[64] = {};
        if (::send(fd, request, sizeof request - 1, MSG_NOSIGNAL) == ssize_t(sizeof request - 1)) {
            const ssize_t n = ::recv(fd, reply, sizeof reply - 1, MSG_WAITALL);
            ok = n >= 12 && std::strncmp(reply, "HTTP/1.1 200", 12) == 0;
        }
    }
    ::close(fd);
    return ok;
}

/// One datagram as the reader thread saw it.
struct Notification {
    QByteArray text;
    bool healthAnsweredOnArrival = false; ///< READY=1 only: GET /health on STATUS's URL, at once
};

/// A NOTIFY_SOCKET (sd_notify(3)) in a temporary directory that another uid can reach, read on
/// its own thread until destroyed.
class NotifySocket {
public:
    NotifySocket() {
        ::chmod(QFile::encodeName(m_dir.path()).constData(), 0711);
        m_path = m_dir.filePath(QStringLiteral("notify"));
        m_fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        const QByteArray native = QFile::encodeName(m_path);
        std::memcpy(addr.sun_path, native.constData(), size_t(native.size()));
        m_bound = m_fd >= 0 && ::bind(m_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
                  ::chmod(native.constData(), 0666) == 0;
        if (m_bound)
            m_thread = std::thread([this] { readLoop(); });
    }
    ~NotifySocket() {
        m_stop = true;
        if (m_thread.joinable())
            m_thread.join();
        if (m_fd >= 0)
            ::close(m_fd);
    }
    bool bound() const { return m_bound; }
    QString path() const { return m_path; }
    QList<Notification> received() {
        std::lock_guard lock(m_mutex);
        return m_received;
    }
    /// Waits until a datagram containing @p assignment arrived (or @p timeoutMs passed).
    bool waitFor(const QByteArray& assignment, int timeoutMs) {
        QDeadlineTimer deadline(timeoutMs);
        while (!deadline.hasExpired()) {
            for (const Notification& n : received())
                if (n.text.split('\n').contains(assignment))
                    return true;
            QTest::qWait(20);
        }
        return false;
    }

private:
    void readLoop() {
        while (!m_stop) {
            pollfd p{m_fd, POLLIN, 0};
            if (::poll(&p, 1, 50) <= 0)
                continue;
            char buffer[4096];
            const ssize_t n = ::recv(m_fd, buffer, sizeof buffer, 0);
            if (n <= 0)
                continue;
            Notification note{QByteArray(buffer, int(n))};
            if (note.text.split('\n').contains("READY=1")) {
                static const QRegularExpression kUrl(
                    QStringLiteral("http://127\\.0\\.0\\.1:(\\d+)"));
                const auto match = kUrl.match(QString::fromUtf8(note.text));
                note.healthAnsweredOnArrival =
                    match.hasMatch() && healthAnswers(quint16(match.captured(1).toUInt()));
            }
            std::lock_guard lock(m_mutex);
            m_received.append(note);
        }
    }

    QTemporaryDir m_dir;
    QString m_path;
    int m_fd = -1;
    bool m_bound = false;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
    std::mutex m_mutex;
    QList<Notification> m_received;
};

} // namespace

class TestServiceNotify final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testHealthCheckCanFail() {
        // Positive control for the check the reader makes: a port nobody listens on.
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof addr;
        QVERIFY(::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) == 0);
        QVERIFY(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
        ::close(fd);
        QVERIFY(!healthAnswers(ntohs(addr.sin_port)));
    }

    void testReadyOnlyOnceTheListenerAnswersThenStopping() {
        NotifySocket notify;
        QVERIFY(notify.bound());
        AgentProcess agent;
        AgentOptions options;
        options.extraEnv.insert(QStringLiteral("NOTIFY_SOCKET"), notify.path());
        QVERIFY2(agent.start(options), qPrintable(agent.errorString()));
        QVERIFY2(notify.waitFor("READY=1", 30000), qPrintable(agent.log()));
        // A moment for a second READY=1 that must not come.
        QTest::qWait(500);
        QList<Notification> got = notify.received();
        int ready = 0;
        for (const Notification& n : got) {
            if (!n.text.split('\n').contains("READY=1"))
                continue;
            ++ready;
            QVERIFY2(n.healthAnsweredOnArrival, n.text.constData());
            QVERIFY2(n.text.contains("STATUS=listening on " + agent.baseUrl().toString().toUtf8()),
                     n.text.constData());
            QVERIFY2(n.text.contains("sandbox: "), n.text.constData()); // the probe's conclusion
        }
        QCOMPARE(ready, 1);
        QVERIFY(!got.first().text.contains("STOPPING=1"));
        // The probe report is served (the probe ran before READY=1).
        const ApiResponse health = agent.client()->call("GET", "/v1/health", {}, 30000);
        QCOMPARE(health.status, 200);
        QVERIFY(health.json().value("sandbox").toObject().contains("procMode"));

        QVERIFY2(agent.stop(), qPrintable(agent.log()));
        QVERIFY2(notify.waitFor("STOPPING=1", 5000), qPrintable(agent.log()));
        got = notify.received();
        QVERIFY(got.last().text.contains("STOPPING=1"));
    }
};

QTEST_GUILESS_MAIN(TestServiceNotify)
#include "test_service_notify.moc"
