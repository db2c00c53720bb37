// Streamed request bodies in the HTTP layer (RequestHandler::wantsBodyStream): the handler
// decides on the head, bytes flow only after body().accept() and only as fast as it reads them,
// Content-Length and chunked both work, early answers reach the client, broken bodies are
// reported, and buffered requests behave as before.
#include "agent/http/HttpExchange.h"
#include "agent/http/HttpServer.h"
#include "shared/Crypto.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QTcpSocket>
#include <QTest>

#include <functional>

using namespace runbox;
using namespace runbox::http;

namespace {

/// Streams bodies of requests whose path starts with /stream; `onHandle` decides the rest.
class TestHandler final : public RequestHandler {
public:
    bool wantsBodyStream(const HttpRequest& head) override {
        ++headsSeen;
        return head.rawPath.startsWith("/stream");
    }
    void handle(HttpExchange* exchange) override {
        if (onHandle)
            onHandle(exchange);
        else
            exchange->reply(200, QByteArray::number(exchange->request().body.size()), "text/plain");
    }
    int headsSeen = 0;
    std::function<void(HttpExchange*)> onHandle;
};

/// Reads the body of a streamed request to its end and answers `<bytes> <sha256>`.
struct Collector {
    QByteArray sha;
    qint64 bytes = 0;
    qint64 bodyAtHandle = -1;
    bool failed = false;
    bool readImmediately = true;
    QPointer<HttpExchange> exchange;
    crypto::Sha256Stream hash;

    void attach(HttpExchange* ex) {
        exchange = ex;
        bodyAtHandle = ex->body().bytesReceived();
        QObject::connect(&ex->body(), &HttpRequestBody::readyRead, ex, [this] {
            if (readImmediately)
                drain();
        });
        QObject::connect(&ex->body(), &HttpRequestBody::complete, ex, [this] {
            drain();
            sha = hash.finalHex();
            exchange->reply(200, QByteArray::number(bytes) + ' ' + sha, "text/plain");
        });
        QObject::connect(&ex->body(), &HttpRequestBody::failed, ex, [this] { failed = true; });
        ex->body().accept();
    }
    void drain() {
        const QByteArray data = exchange->body().read();
        hash.addData(data.constData(), data.size());
        bytes += data.size();
    }
};

struct Response {
    int status = 0;
    QByteArray head;
    QByteArray body;
    bool interimContinue = false;
};

/// Parses one response (skipping a `100 Continue`) out of @p buffer; false if incomplete.
bool takeResponse(QByteArray* buffer, Response* out) {
    for (;;) {
        const qsizetype end = buffer->indexOf("\r\n\r\n");
        if (end < 0)
            return false;
        const QByteArray head = buffer->left(end);
        if (head.startsWith("HTTP/1.1 100")) {
            out->interimContinue = true;
            buffer->remove(0, end + 4);
            continue;
        }
        qint64 length = 0;
        for (const QByteArray& line : head.split('\n'))
            if (line.toLower().startsWith("content-length:"))
                length = line.mid(15).trimmed().toLongLong();
        if (buffer->size() < end + 4 + length)
            return false;
        out->head = head;
        out->status = head.mid(9, 3).toInt();
        out->body = buffer->mid(end + 4, length);
        buffer->remove(0, end + 4 + length);
        return true;
    }
}

QByteArray pattern(qint64 size) {
    QByteArray data(size, Qt::Uninitialized);
    for (qint64 i = 0; i < size; ++i)
        data[i] = char((i * 131 + i / 4096) & 0xff);
    return data;
}

QByteArray chunked(const QByteArray& data, qint64 chunk) {
    QByteArray out;
    for (qint64 i = 0; i < data.size(); i += chunk) {
        const QByteArray part = data.mid(i, chunk);
        out += QByteArray::number(part.size(), 16) + "\r\n" + part + "\r\n";
    }
    return out + "0\r\n\r\n";
}

} // namespace

class TestHttpStreaming final : public QObject {
    Q_OBJECT

private:
    TestHandler m_handler;
    HttpLimits m_limits;
    std::unique_ptr<HttpServer> m_server;

    void startServer() {
        m_server = std::make_unique<HttpServer>(&m_handler, m_limits);
        QVERIFY(m_server->listen(QHostAddress::LocalHost, 0));
    }

    std::unique_ptr<QTcpSocket> connectClient() {
        auto s = std::make_unique<QTcpSocket>();
        s->connectToHost(QHostAddress::LocalHost, m_server->serverPort());
        if (!s->waitForConnected(5000))
            return nullptr;
        return s;
    }

    /// Event-loop spins until a whole response arrived on @p s (or @p timeoutMs passed).
    static bool readResponse(QTcpSocket* s, QByteArray* buffer, Response* out,
                             int timeoutMs = 30000) {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < timeoutMs) {
            *buffer += s->readAll();
            if (takeResponse(buffer, out))
                return true;
            QTest::qWait(5);
        }
        return false;
    }

private Q_SLOTS:
    void init() {
        m_handler.onHandle = nullptr;
        m_handler.headsSeen = 0;
        m_limits = HttpLimits{};
        m_limits.maxBodyBytes = 1024 * 1024;
        m_limits.lingerMs = 3000;
        startServer();
    }
    void cleanup() { m_server.reset(); }

    void testBufferedBodyIsStillBufferedUpToTheLimit() {
        auto c = connectClient();
        QVERIFY(c);
        const QByteArray body = pattern(100000);
        c->write("POST /buffered HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                 QByteArray::number(body.size()) + "\r\n\r\n" + body);
        QByteArray buf;
        Response r;
        QVERIFY(readResponse(c.get(), &buf, &r));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.body, QByteArray("100000"));
    }

    void testBufferedBodyOverTheLimitIs413() {
        auto c = connectClient();
        QVERIFY(c);
        c->write("POST /buffered HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                 QByteArray::number(m_limits.maxBodyBytes + 1) + "\r\n\r\n" + pattern(65536));
        QByteArray buf;
        Response r;
        QVERIFY(readResponse(c.get(), &buf, &r));
        QCOMPARE(r.status, 413);
        QVERIFY(r.body.contains("body_too_large"));
    }

    void testContentLengthBodyIsStreamedPastTheBufferedLimit() {
        Collector col;
        m_handler.onHandle = [&](HttpExchange* ex) {
            QVERIFY(ex->body().isStreamed());
            QVERIFY(ex->request().body.isEmpty());
            col.attach(ex);
        };
        auto c = connectClient();
        QVERIFY(c);
        const QByteArray body = pattern(8 * 1024 * 1024); // 8x the buffered limit
        c->write("PUT /stream/a HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                 QByteArray::number(body.size()) + "\r\n\r\n" + body);
        QByteArray buf;
        Response r;
        QVERIFY(readResponse(c.get(), &buf, &r));
        QCOMPARE(r.status, 200);
        QCOMPARE(col.bodyAtHandle, 0); // handled on the head, before any body byte
        QCOMPARE(r.body, QByteArray::number(body.size()) + ' ' + crypto::sha256Hex(body));
    }

    void testChunkedBodyIsStreamedDecoded() {
        Collector col;
        m_handler.onHandle = [&](HttpExchange* ex) { col.attach(ex); };
        auto c = connectClient();
        QVERIFY(c);
        const QByteArray body = pattern(3 * 1024 * 1024 + 17);
        c->write("PUT /stream/b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
                 chunked(body, 100000));
        QByteArray buf;
        Response r;
        QVERIFY(readResponse(c.get(), &buf, &r));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.body, QByteArray::number(body.size()) + ' ' + crypto::sha256Hex(body));
    }

    void testSlowConsumerStopsTheSocketReads() {
        Collector col;
        col.readImmediately = false; // the consumer is "behind" until told otherwise
        m_handler.onHandle = [&](HttpExchange* ex) { col.attach(ex); };
        auto c = connectClient();
        QVERIFY(c);
        const qint64 total = 96LL * 1024 * 1024;
        const QByteArray body = pattern(total);
        c->write("PUT /stream/slow HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                 QByteArray::number(total) + "\r\n\r\n" + body);
        QTRY_VERIFY(col.exchange && col.exchange->body().bytesAvailable() > 0);
        QTest::qWait(1000); // let both sides settle: the client can only fill socket buffers
        // The server holds at most its stream buffer plus one socket read; the client could not
        // push the body out (the kernel buffers on loopback are far smaller than 96 MiB).
        QVERIFY2(col.exchange->body().bytesAvailable() <= m_limits.streamBufferBytes + 1024 * 1024,
                 QByteArray::number(col.exchange->body().bytesAvailable()).constData());
        QVERIFY(c->bytesToWrite() > 0);
        QVERIFY(col.exchange->body().bytesReceived() < total / 2);
        // Positive control: once the consumer reads, everything arrives intact.
        col.readImmediately = true;
        col.drain();
        QByteArray buf;
        Response r;
        QVERIFY(readResponse(c.get(), &buf, &r, 60000));
        QCOMPARE(r.body, QByteArray::number(total) + ' ' + crypto::sha256Hex(body));
    }

    void testEarlyAnswerReachesAClientStillSending() {
        m_handler.onHandle = [](HttpExchange* ex) {
            ex->replyError(413, QStringLiteral("upload_too_large"), QStringLiteral("no"));
        };
        auto c = connectClient();
        QVERIFY(c);
        const QByteArray body = pattern(32 * 1024 * 1024);
        c->write("PUT /stream/big HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                 QByteArray::number(body.size()) + "\r\n\r\n" + body);
        QByteArray buf;
        Response r;
        QVERIFY(readResponse(c.get(), &buf, &r));
        QCOMPARE(r.status, 413);
        QVERIFY(r.head.contains("Connection: close"));
        QVERIFY(r.body.contains("upload_too_large"));
        QTRY_VERIFY_WITH_TIMEOUT(c->state() == QAbstractSocket::UnconnectedState, 10000);
    }

    void testEarlyAnswerWithDrainReachesAClientThatReadsOnlyAfterSending() {
        bool drain = true;
        m_handler.onHandle = [&](HttpExchange* ex) {
            if (drain)
                ex->setDrainLimit(1LL << 30);
            ex->replyError(409, QStringLiteral("file_exists"), QStringLiteral("no"));
        };
        m_limits.lingerMs = 50; // far shorter than the client takes to send its body
        startServer();
        const QByteArray piece = pattern(1024 * 1024);
        // Like Qt's QNetworkAccessManager: the whole body is sent (here slowly, 32 MiB in
        // pieces) before the answer is looked at.
        auto sendAllThenRead = [&](Response* r) {
            auto c = connectClient();
            if (!c)
                return false;
            const QByteArray head = "PUT /stream/x HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                                    QByteArray::number(32 * piece.size()) + "\r\n\r\n";
            const qint64 total = head.size() + 32 * piece.size();
            qint64 sent = 0;
            connect(c.get(), &QTcpSocket::bytesWritten, c.get(), [&](qint64 n) { sent += n; });
            c->write(head);
            for (int i = 0; i < 32 && c->state() == QAbstractSocket::ConnectedState; ++i) {
                c->write(piece);
                QTest::qWait(10);
            }
            QElapsedTimer t;
            t.start();
            while (sent < total && c->state() == QAbstractSocket::ConnectedState &&
                   t.elapsed() < 30000)
                QTest::qWait(5);
            if (sent < total)
                return false; // the server stopped reading and reset the connection
            QByteArray buf;
            return readResponse(c.get(), &buf, r, 10000);
        };
        Response r;
        QVERIFY(sendAllThenRead(&r));
        QCOMPARE(r.status, 409);
        QVERIFY(r.head.contains("Connection: close"));
        // Control: without a drain allowance the server stops reading after lingerMs and such a
        // client never gets the answer.
        drain = false;
        Response lost;
        QVERIFY(!sendAllThenRead(&lost));
    }

    void testExpectContinueIsSentOnlyWhenTheBodyIsAccepted() {
        QPointer<HttpExchange> pending;
        Collector col;
        m_handler.onHandle = [&](HttpExchange* ex) {
            if (ex->request().rawPath == "/stream/refuse")
                ex->replyError(403, QStringLiteral("forbidden"), QStringLiteral("no"));
            else
                pending = ex;
        };
        auto c = connectClient();
        QVERIFY(c);
        c->write("PUT /stream/ok HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                 "Expect: 100-continue\r\n\r\n");
        QTRY_VERIFY(pending);
        QTest::qWait(100);
        QVERIFY(c->readAll().isEmpty()); // nothing before the handler accepts
        col.attach(pending);
        QTRY_VERIFY(c->bytesAvailable() > 0);
        QCOMPARE(c->readAll(), QByteArray("HTTP/1.1 100 Continue\r\n\r\n"));
        c->write("hello");
        QByteArray buf;
        Response r;
        QVERIFY(readResponse(c.get(), &buf, &r));
        QCOMPARE(r.body, "5 " + crypto::sha256Hex("hello"));

        auto c2 = connectClient();
        QVERIFY(c2);
        c2->write("PUT /stream/refuse HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                  "Expect: 100-continue\r\n\r\n");
        Response r2;
        QByteArray buf2;
        QVERIFY(readResponse(c2.get(), &buf2, &r2));
        QCOMPARE(r2.status, 403);
        QVERIFY(!r2.interimContinue);
    }

    void testBrokenChunkInTheBodyFailsTheExchange() {
        Collector col;
        m_handler.onHandle = [&](HttpExchange* ex) { col.attach(ex); };
        auto c = connectClient();
        QVERIFY(c);
        c->write("PUT /stream/bad HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                 "5\r\nhello\r\nzz\r\n");
        QByteArray buf;
        Response r;
        QVERIFY(readResponse(c.get(), &buf, &r));
        QCOMPARE(r.status, 400);
        QVERIFY(r.body.contains("bad_request"));
        QVERIFY(col.failed);
        QVERIFY(col.sha.isEmpty()); // never told the body was complete
    }

    void testKeepAliveAndPipeliningAfterAStreamedBody() {
        Collector col;
        m_handler.onHandle = [&](HttpExchange* ex) {
            if (ex->body().isStreamed())
                col.attach(ex);
            else
                ex->reply(200, "second", "text/plain");
        };
        auto c = connectClient();
        QVERIFY(c);
        c->write("PUT /stream/p HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
                 "GET /plain HTTP/1.1\r\nHost: x\r\n\r\n");
        QByteArray buf;
        Response first, second;
        QVERIFY(readResponse(c.get(), &buf, &first));
        QVERIFY(readResponse(c.get(), &buf, &second));
        QCOMPARE(first.body, "3 " + crypto::sha256Hex("abc"));
        QVERIFY(first.head.contains("Connection: keep-alive"));
        QCOMPARE(second.body, QByteArray("second"));
        QCOMPARE(m_handler.headsSeen, 2);
    }

    void testFixedLengthResponseAndBodylessStatuses() {
        m_handler.onHandle = [](HttpExchange* ex) {
            if (ex->request().rawPath == "/304")
                return ex->reply(304, {}, {}, {{"ETag", "\"x\""}});
            ex->beginFixed(200, "application/octet-stream", 10);
            ex->writeFixed("01234");
            ex->writeFixed("56789extra");
            ex->endFixed();
        };
        auto c = connectClient();
        QVERIFY(c);
        c->write("GET /fixed HTTP/1.1\r\nHost: x\r\n\r\nGET /304 HTTP/1.1\r\nHost: x\r\n\r\n");
        QByteArray buf;
        Response r, notModified;
        QVERIFY(readResponse(c.get(), &buf, &r));
        QCOMPARE(r.body, QByteArray("0123456789"));
        QVERIFY(readResponse(c.get(), &buf, &notModified));
        QCOMPARE(notModified.status, 304);
        QVERIFY(!notModified.head.toLower().contains("content-length"));
        QVERIFY(buf.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestHttpStreaming)
#include "test_http_streaming.moc"
