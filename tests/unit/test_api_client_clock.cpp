// ApiClient's clock offset (docs/contracts.md "Request signing": the client corrects its
// timestamps by the agent's Date header) against a fake server whose clock and reply delay the
// test chooses. The server writes its Date with the headers, as the agent does, and checks each
// request's X-Runbox-Timestamp against its own clock within a reduced window (kWindowMs, the
// agent's ±30 s scaled down to the test's seconds-long replies).
// - A slow reply leaves the offset where it was: the next request is within the window. (The
//   midpoint estimate moved it by half the reply's duration: after a 118 s delete the next
//   signed request was signature_expired.)
// - A server clock minutes off is followed after one fast reply, and after one slow one.
#include "shared/ApiClient.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QLocale>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>

#include <cstdlib>

using namespace runbox;

namespace {

constexpr qint64 kWindowMs = 1000;
constexpr int kSlowMs = 4500; // the midpoint estimate then moves by 1.75 s to 2.75 s

/// One request at a time: reads its head, answers after delayMs with the Date of its clock
/// (the local clock plus skewMs), and remembers how far the request's timestamp was from it.
class FakeServer final : public QObject {
public:
    qint64 skewMs = 0;
    int delayMs = 0;
    qint64 lastStampErrorMs = 0; ///< the last request's X-Runbox-Timestamp minus the server's time

    FakeServer() {
        m_server.listen(QHostAddress::LocalHost);
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection())
                serve(socket);
        });
    }
    QUrl url() const {
        return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort()));
    }

private:
    qint64 nowMs() const { return QDateTime::currentMSecsSinceEpoch() + skewMs; }

    void serve(QTcpSocket* socket) {
        auto head = std::make_shared<QByteArray>();
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        connect(socket, &QTcpSocket::readyRead, this, [this, socket, head] {
            *head += socket->readAll();
            if (!head->contains("\r\n\r\n"))
                return;
            for (const QByteArray& line : head->split('\n'))
                if (line.toLower().startsWith("x-runbox-timestamp:"))
                    lastStampErrorMs = line.mid(19).trimmed().toLongLong() - nowMs();
            *head = QByteArray(); // answered once
            QTimer::singleShot(delayMs, socket, [this, socket] {
                const QByteArray date =
                    QLocale::c()
                        .toString(QDateTime::fromMSecsSinceEpoch(nowMs(), Qt::UTC),
                                  QStringLiteral("ddd, dd MMM yyyy HH:mm:ss 'GMT'"))
                        .toLatin1();
                socket->write("HTTP/1.1 200 OK\r\nDate: " + date +
                              "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
                              "Connection: close\r\n\r\n{}");
                socket->disconnectFromHost();
            });
        });
    }

    QTcpServer m_server;
};

} // namespace

class TestApiClientClock final : public QObject {
    Q_OBJECT

    /// One signed request; true when it was answered.
    static bool ask(ApiClient& client) { return client.call("GET", "/v1/anything").status == 200; }

private Q_SLOTS:
    void testASlowReplyLeavesTheOffsetAlone() {
        FakeServer server;
        ApiClient client(server.url(), QByteArray(64, 'a'));
        QVERIFY(ask(client));
        QVERIFY2(std::llabs(server.lastStampErrorMs) < kWindowMs,
                 qPrintable(QString::number(server.lastStampErrorMs)));
        server.delayMs = kSlowMs;
        QElapsedTimer slow;
        slow.start();
        QVERIFY(ask(client));
        QVERIFY(slow.elapsed() >= kSlowMs - 300); // a coarse timer may fire a little early
        server.delayMs = 0;
        QVERIFY(ask(client));
        qInfo("after a %d ms reply: offset %lld ms, next stamp off by %lld ms", kSlowMs,
              client.clockOffsetMs(), server.lastStampErrorMs);
        QVERIFY2(std::llabs(server.lastStampErrorMs) < kWindowMs,
                 qPrintable(QString::number(server.lastStampErrorMs)));
    }

    void testASkewedServerClockIsFollowed() {
        FakeServer server;
        server.skewMs = 5 * 60 * 1000;
        ApiClient client(server.url(), QByteArray(64, 'a'));
        QVERIFY(ask(client)); // its stamp is minutes off: a real agent would refuse it
        QVERIFY(std::llabs(server.lastStampErrorMs) > 60000);
        QVERIFY(ask(client));
        QVERIFY2(std::llabs(server.lastStampErrorMs) < kWindowMs,
                 qPrintable(QString::number(server.lastStampErrorMs)));
        server.delayMs = kSlowMs;
        QVERIFY(ask(client));
        server.delayMs = 0;
        QVERIFY(ask(client));
        QVERIFY2(std::llabs(server.lastStampErrorMs) < kWindowMs,
                 qPrintable(QString::number(server.lastStampErrorMs)));
    }

    void testASlowFirstReplyFromASkewedServer() {
        // Behind by two minutes, and the first reply is the slow one.
        FakeServer server;
        server.skewMs = -2 * 60 * 1000;
        server.delayMs = kSlowMs;
        ApiClient client(server.url(), QByteArray(64, 'a'));
        QVERIFY(ask(client));
        server.delayMs = 0;
        QVERIFY(ask(client));
        qInfo("after a slow first reply from a server 2 min behind: stamp off by %lld ms",
              server.lastStampErrorMs);
        QVERIFY2(std::llabs(server.lastStampErrorMs) < kWindowMs,
                 qPrintable(QString::number(server.lastStampErrorMs)));
    }

    void testTheOffsetRule() {
        // Pure figures: sent at 0, headers at 118 s; the server's Date read at 118 s.
        const qint64 date = 118000;
        QCOMPARE(ApiClient::correctedClockOffset(0, date, 0, 118400), qint64(0));
        // An offset the reply cannot have: taken from the Date as read on arrival.
        QCOMPARE(ApiClient::correctedClockOffset(-5000, date, 0, 118400), qint64(100));
        QCOMPARE(ApiClient::correctedClockOffset(300000, date, 0, 118400), qint64(100));
        // A fast reply from a server 5 min ahead.
        QCOMPARE(ApiClient::correctedClockOffset(0, 300000, 0, 20), qint64(300480));
    }
};

QTEST_GUILESS_MAIN(TestApiClientClock)
#include "test_api_client_clock.moc"
