// ExecutionFollower's managed mode (docs/managed.md "Log streams"): a stream that breaks before the
// `exit` event is resumed from the next unseen logical offset, and bytes delivered twice are shown
// once. The managed routes are not in the agent yet, so a scripted HTTP peer plays them here (the
// sync mode is tested against the real agent in test_console_against_agent).
#include "console/connection/AgentConnection.h"
#include "console/connection/ExecutionFollower.h"

#include <QJsonDocument>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QUrlQuery>

using namespace runbox::console;

namespace {

QByteArray line(const QJsonObject& ev) {
    return QJsonDocument(ev).toJson(QJsonDocument::Compact) + '\n';
}

QByteArray chunk(const QByteArray& data) {
    return QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n";
}

// Answers one request per connection from a script keyed by the request target.
class ScriptedPeer final : public QObject {
public:
    ScriptedPeer() {
        server.listen(QHostAddress::LocalHost);
        connect(&server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* s = server.nextPendingConnection())
                connect(s, &QTcpSocket::readyRead, this, [this, s] { onData(s); });
        });
    }
    QUrl url() const {
        return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.serverPort()));
    }

    QTcpServer server;
    QStringList targets; ///< request lines seen, in order
    int logRequests = 0;

private:
    void onData(QTcpSocket* s) {
        QByteArray& buf = m_buffers[s];
        buf += s->readAll();
        if (!buf.contains("\r\n\r\n"))
            return;
        const QList<QByteArray> first = buf.left(buf.indexOf("\r\n")).split(' ');
        const QByteArray method = first.value(0), target = first.value(1);
        targets << QString::fromLatin1(method + ' ' + target);
        buf.clear();
        if (target == "/v1/executions/ex1") {
            const QByteArray body = line({{"executionId", "ex1"},
                                          {"workspace", "w1"},
                                          {"kind", "shell"},
                                          {"state", "running"}});
            s->write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                     QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
            s->disconnectFromHost();
            return;
        }
        if (method == "POST" && target == "/v1/executions/ex1/cancel") {
            const QByteArray body = "{}";
            s->write("HTTP/1.1 202 Accepted\r\nContent-Length: 2\r\nConnection: close\r\n\r\n" +
                     body);
            s->disconnectFromHost();
            return;
        }
        if (target.startsWith("/v1/executions/ex1/log")) {
            ++logRequests;
            s->write("HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n"
                     "Transfer-Encoding: chunked\r\n\r\n");
            if (logRequests == 1) {
                // 6 bytes of stdout, 5 of stderr, then the connection breaks: no exit event.
                s->write(chunk(line({{"type", "stdout"}, {"data", "hello "}, {"offset", 0}})));
                s->write(chunk(line({{"type", "stderr"}, {"data", "warn\n"}, {"offset", 6}})));
                s->flush();
                QTimer::singleShot(50, s, [s] { s->abort(); });
                return;
            }
            // The resumed stream repeats what was seen (as a server might) and ends properly.
            s->write(chunk(line({{"type", "stderr"}, {"data", "warn\n"}, {"offset", 6}})));
            s->write(chunk(line({{"type", "stdout"}, {"data", "world\n"}, {"offset", 11}})));
            s->write(chunk(line({{"type", "exit"},
                                 {"status", "completed"},
                                 {"exitCode", 0},
                                 {"durationMs", 1200}})));
            s->write("0\r\n\r\n");
            s->disconnectFromHost();
            return;
        }
        s->write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        s->disconnectFromHost();
    }
    QHash<QTcpSocket*, QByteArray> m_buffers;
};

} // namespace

class TestExecutionFollower final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testBrokenStreamResumesFromTheNextUnseenByte() {
        ScriptedPeer peer;
        AgentConnection connection({AgentProfile::newId(), QStringLiteral("peer"), peer.url()},
                                   QByteArray(64, 'a'));
        ExecutionFollower follower(&connection, QStringLiteral("ex1"));
        QByteArray out, err;
        connect(&follower, &ExecutionFollower::output, this, [&](int stream, const QByteArray& b) {
            (stream == ExecutionFollower::Stdout ? out : err) += b;
        });
        QSignalSpy notices(&follower, &ExecutionFollower::notice);
        QSignalSpy finished(&follower, &ExecutionFollower::finished);
        follower.start();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
        QCOMPARE(peer.logRequests, 2);
        QVERIFY(peer.targets.contains(
            QStringLiteral("GET /v1/executions/ex1/log?offset=0&follow=true")));
        QVERIFY(peer.targets.contains(
            QStringLiteral("GET /v1/executions/ex1/log?offset=11&follow=true")));
        QCOMPARE(out, QByteArray("hello world\n"));
        QCOMPARE(err, QByteArray("warn\n")); // once, although the peer sent it twice
        QCOMPARE(follower.nextOffset(), 17);
        QCOMPARE(follower.info().state, QStringLiteral("completed"));
        QCOMPARE(follower.info().exitCode, 0);
        // The interruption was announced, and the announcement withdrawn once resumed.
        QVERIFY(notices.count() >= 2);
        QVERIFY(notices.last().at(0).toString().isEmpty());
    }

    void testCancelAsksTheAgent() {
        ScriptedPeer peer;
        AgentConnection connection({AgentProfile::newId(), QStringLiteral("peer"), peer.url()},
                                   QByteArray(64, 'a'));
        ExecutionFollower follower(&connection, QStringLiteral("ex1"));
        QSignalSpy notices(&follower, &ExecutionFollower::notice);
        follower.start();
        follower.cancel();
        QTRY_VERIFY(peer.targets.contains(QStringLiteral("POST /v1/executions/ex1/cancel")));
        QTRY_VERIFY(!notices.isEmpty());
    }
};

QTEST_MAIN(TestExecutionFollower)
#include "test_execution_follower.moc"
