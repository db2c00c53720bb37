// HTTP/1.1 framing at the agent's front door, driven with hand-made bytes on raw sockets.
#include "shared/ApiClient.h"
#include "support/AgentProcess.h"
#include "support/RawHttp.h"

#include <QDateTime>
#include <QTest>

using namespace runbox;
using namespace runbox::testsupport;

class TestHttpFraming final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString())); }
    void cleanupTestCase() { QVERIFY2(m_agent.stop(), qPrintable(m_agent.log())); }

    void testWellFormedRequestIsAnswered() {
        const RawHttpResponse r = rawRoundTrip(m_agent.port(), buildRequest("GET", "/health", {}));
        QCOMPARE(r.status, 200);
        QVERIFY(r.complete);
        QCOMPARE(r.json().value("status").toString(), QStringLiteral("ok"));
    }

    void testContentLengthWithTransferEncodingIs400() {
        const int before = m_agent.workspaceCount();
        const QByteArray body = "{\"isolation\":\"strong\"}";
        HeaderList headers = signedHeaders(m_agent.token(), "POST", "/v1/workspaces", body, now());
        headers << qMakePair(QByteArray("Content-Type"), QByteArray("application/json"))
                << qMakePair(QByteArray("Content-Length"), QByteArray::number(body.size()))
                << qMakePair(QByteArray("Transfer-Encoding"), QByteArray("chunked"));
        verifyRejectedAndClosed(
            buildRequest("POST", "/v1/workspaces", headers, chunkedBody(body, 8)), 400);
        QCOMPARE(m_agent.workspaceCount(), before);
    }

    void testBadChunkSizeIs400_data() {
        QTest::addColumn<QByteArray>("chunks");
        QTest::newRow("not hex") << QByteArray("zz\r\n{}\r\n0\r\n\r\n");
        QTest::newRow("negative") << QByteArray("-2\r\n{}\r\n0\r\n\r\n");
        QTest::newRow("size overflows 64 bits")
            << QByteArray("1000000000000000000\r\n{}\r\n0\r\n\r\n");
    }
    void testBadChunkSizeIs400() {
        QFETCH(QByteArray, chunks);
        const HeaderList headers{{"Transfer-Encoding", "chunked"}};
        verifyRejectedAndClosed(buildRequest("POST", "/v1/workspaces", headers, chunks), 400);
    }

    void testMalformedRequestLineIs400() {
        verifyRejectedAndClosed("NOT AN HTTP REQUEST\r\n\r\n", 400);
    }

    void testOversizeContentLengthIs413() {
        // The default request-body limit is 16 MiB; the head alone must be enough to refuse.
        const HeaderList headers{{"Content-Type", "application/json"},
                                 {"Content-Length", QByteArray::number(17LL << 20)}};
        verifyRejectedAndClosed(buildRequest("POST", "/v1/workspaces", headers), 413);
    }

    void testOversizeBodyIsNotParsedAsFurtherRequests() {
        // Body bytes of a refused request must never be read as a pipelined request (smuggling).
        const HeaderList headers{{"Content-Length", QByteArray::number(17LL << 20)}};
        const QByteArray smuggled = buildRequest("GET", "/health", {});
        RawHttpConnection c;
        QVERIFY(c.connectTo(m_agent.port()));
        QVERIFY(c.send(buildRequest("POST", "/v1/workspaces", headers, smuggled)));
        QCOMPARE(c.readResponse().status, 413);
        QVERIFY(c.waitForClose());
        QVERIFY2(!c.unreadBytes().contains("HTTP/1.1"), c.unreadBytes().constData());
    }

    void testOversizeChunkedBodyIs413() {
        const QByteArray body(17 << 20, ' ');
        const HeaderList headers{{"Transfer-Encoding", "chunked"}};
        RawHttpConnection c;
        QVERIFY(c.connectTo(m_agent.port()));
        c.send(buildRequest("POST", "/v1/workspaces", headers, chunkedBody(body, 1 << 20)), 30000);
        const RawHttpResponse r = c.readResponse(30000);
        QCOMPARE(r.status, 413);
        QCOMPARE(r.errorCode(), QStringLiteral("body_too_large"));
    }

    void testKeepAliveServesTwoRequestsOnOneConnection() {
        RawHttpConnection c;
        QVERIFY(c.connectTo(m_agent.port()));
        QVERIFY(c.send(buildRequest("GET", "/health", {})));
        const RawHttpResponse first = c.readResponse();
        QCOMPARE(first.status, 200);
        QVERIFY(first.complete);
        QVERIFY(c.socket().state() == QAbstractSocket::ConnectedState);
        const HeaderList auth = signedHeaders(m_agent.token(), "GET", "/v1/health", {}, now());
        QVERIFY(c.send(buildRequest("GET", "/v1/health", auth)));
        const RawHttpResponse second = c.readResponse();
        QCOMPARE(second.status, 200);
        QVERIFY(second.json().contains("sandbox"));
    }

    void testPipelinedRequestsAreAnsweredInOrder() {
        RawHttpConnection c;
        QVERIFY(c.connectTo(m_agent.port()));
        const HeaderList auth = signedHeaders(m_agent.token(), "GET", "/v1/health", {}, now());
        QVERIFY(c.send(buildRequest("GET", "/v1/health", auth) +
                       buildRequest("GET", "/health", {}) + buildRequest("GET", "/v1/health", {})));
        const RawHttpResponse a = c.readResponse(), b = c.readResponse(), d = c.readResponse();
        QCOMPARE(a.status, 200);
        QVERIFY(a.json().contains("sandbox"));
        QCOMPARE(b.status, 200);
        QVERIFY(!b.json().contains("sandbox"));
        QCOMPARE(d.status, 401);
    }

    void testConnectionCloseIsHonoured() {
        RawHttpConnection c;
        QVERIFY(c.connectTo(m_agent.port()));
        QVERIFY(c.send(buildRequest("GET", "/health", {{"Connection", "close"}})));
        QCOMPARE(c.readResponse().status, 200);
        QVERIFY(c.waitForClose());
    }

    void testChunkedRequestBodyIsVerifiedBySignature() {
        const int before = m_agent.workspaceCount();
        const QByteArray body = "{\"isolation\":\"strong\"}";
        HeaderList headers = signedHeaders(m_agent.token(), "POST", "/v1/workspaces", body, now());
        headers << qMakePair(QByteArray("Transfer-Encoding"), QByteArray("chunked"));
        const RawHttpResponse good = rawRoundTrip(
            m_agent.port(), buildRequest("POST", "/v1/workspaces", headers, chunkedBody(body, 5)));
        QVERIFY2(good.status == 201, good.body.constData()); // positive control
        QCOMPARE(m_agent.workspaceCount(), before + 1);

        // Same signature, different chunked body: the signature covers the de-chunked bytes.
        const QByteArray other = "{\"isolation\":\"strong\",\"count\":1}";
        HeaderList forged = signedHeaders(m_agent.token(), "POST", "/v1/workspaces", body, now());
        forged << qMakePair(QByteArray("Transfer-Encoding"), QByteArray("chunked"));
        const RawHttpResponse bad = rawRoundTrip(
            m_agent.port(), buildRequest("POST", "/v1/workspaces", forged, chunkedBody(other, 5)));
        QCOMPARE(bad.status, 401);
        QCOMPARE(m_agent.workspaceCount(), before + 1);
    }

    void testSlowHeadStillCompletes() {
        // A head that arrives in pieces is assembled, not rejected.
        RawHttpConnection c;
        QVERIFY(c.connectTo(m_agent.port()));
        const QByteArray request = buildRequest("GET", "/health", {});
        for (qsizetype i = 0; i < request.size(); i += 7)
            QVERIFY(c.send(request.mid(i, 7)));
        QCOMPARE(c.readResponse().status, 200);
    }

private:
    static qint64 now() { return QDateTime::currentMSecsSinceEpoch(); }

    /// The agent answers @p status with a JSON error body (never just drops the connection),
    /// then closes the connection because the framing cannot be trusted any more.
    void verifyRejectedAndClosed(const QByteArray& request, int status) {
        RawHttpConnection c;
        QVERIFY(c.connectTo(m_agent.port()));
        QVERIFY(c.send(request));
        const RawHttpResponse r = c.readResponse();
        QVERIFY2(
            r.status == status,
            qPrintable(QStringLiteral("got %1: %2").arg(r.status).arg(QString::fromUtf8(r.body))));
        QVERIFY2(!r.errorCode().isEmpty(), r.body.constData());
        QVERIFY(c.waitForClose());
    }

    AgentProcess m_agent;
};

QTEST_GUILESS_MAIN(TestHttpFraming)
#include "test_http_framing.moc"
