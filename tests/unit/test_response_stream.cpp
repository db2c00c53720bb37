// http::ResponseStream, the streamed-response helper: the watermarks pause and resume the source,
// the pump is re-entrancy safe, and the `offset` parser accepts and refuses what the log-stream
// routes always did (docs/managed.md "Log streams").

#include "agent/http/HttpExchange.h"
#include "agent/http/ResponseStream.h"

#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <memory>

using runbox::http::HttpExchange;
using runbox::http::HttpRequest;
using runbox::http::ResponseStream;

namespace {

/// A connected pair on loopback with small kernel buffers, so that a client that does not read
/// makes bytes wait in the server socket (HttpExchange::pendingBytes()).
struct SocketPair {
    QTcpServer server;
    std::unique_ptr<QTcpSocket> client;
    QTcpSocket* accepted = nullptr;

    bool open() {
        if (!server.listen(QHostAddress::LocalHost))
            return false;
        client = std::make_unique<QTcpSocket>();
        client->setSocketOption(QAbstractSocket::ReceiveBufferSizeSocketOption, 4096);
        client->connectToHost(QHostAddress::LocalHost, server.serverPort());
        if (!server.waitForNewConnection(5000) || !client->waitForConnected(5000))
            return false;
        accepted = server.nextPendingConnection();
        accepted->setSocketOption(QAbstractSocket::SendBufferSizeSocketOption, 4096);
        return accepted != nullptr;
    }
};

HttpRequest requestWithQuery(const QByteArray& query) {
    HttpRequest r;
    r.method = "GET";
    r.rawQuery = query;
    r.rawPath = "/v1/executions/x/logs";
    r.rawTarget = r.rawPath + (query.isEmpty() ? QByteArray() : "?" + query);
    return r;
}

} // namespace

class TestResponseStream : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testWatermarksPauseAndResumeTheSource();
    void testPullRoundRunsAgainAfterThePause();
    void testNestedPumpRunsOneMoreRoundNotInside();
    void testNoRoundAfterEnd();
    void testOffsetParserAcceptsWhatTheRoutesAccepted();
    void testOffsetParserRefusesWhatTheRoutesRefused();
};

void TestResponseStream::testWatermarksPauseAndResumeTheSource() {
    SocketPair pair;
    QVERIFY(pair.open());
    HttpExchange exchange(requestWithQuery({}), pair.accepted, true, nullptr);
    ResponseStream stream(&exchange, {64 * 1024, 16 * 1024}, nullptr);
    QList<bool> changes;
    stream.onPauseChanged([&](bool paused) { changes.append(paused); });
    stream.begin();
    // Positive control: below the mark, writing does not pause.
    stream.writeEvent({{"type", "stdout"}, {"data", "x"}});
    QVERIFY(!stream.isPaused());
    QVERIFY(changes.isEmpty());
    // A client that does not read: the queue grows past the high mark and the source pauses.
    const QByteArray block(8 * 1024, 'a');
    for (int i = 0; i < 4096 && !stream.isPaused(); ++i)
        stream.writeChunk(block);
    QVERIFY(stream.isPaused());
    QCOMPARE(changes, QList<bool>{true});
    QVERIFY(exchange.pendingBytes() >= 64 * 1024);
    QVERIFY(!stream.hasRoom());
    // The client reads: once below the low mark the source resumes, once.
    QTRY_VERIFY_WITH_TIMEOUT((pair.client->readAll(), !stream.isPaused()), 10000);
    QCOMPARE(changes, (QList<bool>{true, false}));
    QVERIFY(exchange.pendingBytes() < 16 * 1024);
}

void TestResponseStream::testPullRoundRunsAgainAfterThePause() {
    SocketPair pair;
    QVERIFY(pair.open());
    HttpExchange exchange(requestWithQuery({}), pair.accepted, true, nullptr);
    ResponseStream stream(&exchange, {64 * 1024, 16 * 1024}, nullptr);
    stream.begin();
    int rounds = 0;
    qint64 written = 0;
    const qint64 total = 1024 * 1024;
    const QByteArray block(8 * 1024, 'b');
    stream.setPump([&] {
        ++rounds;
        while (written < total && stream.hasRoom()) {
            stream.writeChunk(block);
            written += block.size();
        }
    });
    stream.pump();
    QCOMPARE(rounds, 1);
    QVERIFY(written < total); // stopped at the high mark
    // Draining the client re-runs the round by itself until everything is written.
    QTRY_VERIFY_WITH_TIMEOUT((pair.client->readAll(), written == total), 20000);
    QVERIFY(rounds > 1);
}

void TestResponseStream::testNestedPumpRunsOneMoreRoundNotInside() {
    SocketPair pair;
    QVERIFY(pair.open());
    HttpExchange exchange(requestWithQuery({}), pair.accepted, true, nullptr);
    ResponseStream stream(&exchange, {}, nullptr);
    int depth = 0;
    int maxDepth = 0;
    int rounds = 0;
    stream.setPump([&] {
        ++depth;
        ++rounds;
        maxDepth = std::max(maxDepth, depth);
        if (rounds == 1) {
            stream.pump(); // as a write whose flush emitted writable() synchronously would
            stream.pump(); // asking twice still means one more round
        }
        --depth;
    });
    stream.pump();
    QCOMPARE(maxDepth, 1);
    QCOMPARE(rounds, 2);
    // Positive control: a later pump() runs a round again.
    stream.pump();
    QCOMPARE(rounds, 3);
}

void TestResponseStream::testNoRoundAfterEnd() {
    SocketPair pair;
    QVERIFY(pair.open());
    HttpExchange exchange(requestWithQuery({}), pair.accepted, true, nullptr);
    ResponseStream stream(&exchange, {}, nullptr);
    stream.begin();
    int rounds = 0;
    stream.setPump([&] {
        ++rounds;
        stream.pump(); // asks for another round …
        stream.end();  // … but the stream ends in this one
    });
    stream.pump();
    QCOMPARE(rounds, 1);
    QVERIFY(stream.isEnded());
    QVERIFY(exchange.isFinished());
    stream.pump();
    QCOMPARE(rounds, 1);
}

void TestResponseStream::testOffsetParserAcceptsWhatTheRoutesAccepted() {
    const QList<QPair<QByteArray, qint64>> cases = {
        {"", 0},
        {"follow=true", 0},
        {"offset=0", 0},
        {"offset=5", 5},
        {"offset=%2B7", 7},
        {"offset=9223372036854775807", 9223372036854775807LL},
        {"follow=1&offset=12", 12}};
    for (const auto& [query, expected] : cases) {
        qint64 offset = -1;
        const auto err = ResponseStream::parseOffset(requestWithQuery(query), &offset);
        QVERIFY2(!err, query.constData());
        QCOMPARE(offset, expected);
    }
}

void TestResponseStream::testOffsetParserRefusesWhatTheRoutesRefused() {
    for (const QByteArray& query :
         {QByteArray("offset=-1"), QByteArray("offset=abc"), QByteArray("offset="),
          QByteArray("offset=1.5"), QByteArray("offset=9223372036854775808"),
          QByteArray("offset=12abc")}) {
        qint64 offset = -1;
        const auto err = ResponseStream::parseOffset(requestWithQuery(query), &offset);
        QVERIFY2(err.has_value(), query.constData());
        QCOMPARE(err->httpStatus, 400);
        QCOMPARE(err->code, QStringLiteral("invalid_offset"));
        QCOMPARE(err->message, QStringLiteral("offset must be a non-negative integer"));
    }
}

QTEST_GUILESS_MAIN(TestResponseStream)
#include "test_response_stream.moc"
