// HTTP/1.1 framing at the agent's front door, driven with hand-made bytes on raw sockets.
// Requests that must get past the head checks carry a valid token (the head is authenticated
// before any body byte is read, docs/contracts.md "HTTP front door"); their signatures need
// not match the body when the framing is what is under test.
#include "shared/ApiClient.h"
#include "support/AgentProcess.h"
#include "support/RawHttp.h"

#include <QDateTime>
#include <QFile>
#include <QTest>

using namespace runbox;
using namespace runbox::testsupport;

class TestHttpFraming final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString()));
        m_ws = m_agent.createWorkspace();
        QVERIFY2(!m_ws.isEmpty(), qPrintable(m_agent.errorString()));
    }
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
        HeaderList headers = signedHeaders(m_agent.token(), "POST", "/v1/workspaces", {}, now());
        headers << qMakePair(QByteArray("Transfer-Encoding"), QByteArray("chunked"));
        verifyRejectedAndClosed(buildRequest("POST", "/v1/workspaces", headers, chunks), 400);
    }

    void testMalformedRequestLineIs400() {
        verifyRejectedAndClosed("NOT AN HTTP REQUEST\r\n\r\n", 400);
    }

    void testOversizeContentLengthIs413() {
        // The default request-body limit is 16 MiB; the head alone must be enough to refuse.
        HeaderList headers = signedHeaders(m_agent.token(), "POST", "/v1/workspaces", {}, now());
        headers << qMakePair(QByteArray("Content-Type"), QByteArray("application/json"))
                << qMakePair(QByteArray("Content-Length"), QByteArray::number(17LL << 20));
        verifyRejectedAndClosed(buildRequest("POST", "/v1/workspaces", headers), 413);
    }

    void testOversizeBodyIsNotParsedAsFurtherRequests() {
        // Body bytes of a refused request must never be read as a pipelined request (smuggling).
        HeaderList headers = signedHeaders(m_agent.token(), "POST", "/v1/workspaces", {}, now());
        headers << qMakePair(QByteArray("Content-Length"), QByteArray::number(17LL << 20));
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
        HeaderList headers = signedHeaders(m_agent.token(), "POST", "/v1/workspaces", {}, now());
        headers << qMakePair(QByteArray("Transfer-Encoding"), QByteArray("chunked"));
        RawHttpConnection c;
        QVERIFY(c.connectTo(m_agent.port()));
        c.send(buildRequest("POST", "/v1/workspaces", headers, chunkedBody(body, 1 << 20)), 30000);
        const RawHttpResponse r = c.readResponse(30000);
        QCOMPARE(r.status, 413);
        QCOMPARE(r.errorCode(), QStringLiteral("body_too_large"));
    }

    // --- strict parsing where http-parser is lenient (RFC 9112; docs/contracts.md) ---

    void testChunkedAloneIsTheOnlyTransferCoding_data() {
        QTest::addColumn<HeaderList>("codings");
        QTest::newRow("gzip, chunked") << HeaderList{{"Transfer-Encoding", "gzip, chunked"}};
        QTest::newRow("chunked, gzip") << HeaderList{{"Transfer-Encoding", "chunked, gzip"}};
        QTest::newRow("gzip alone") << HeaderList{{"Transfer-Encoding", "gzip"}};
        QTest::newRow("chunked twice")
            << HeaderList{{"Transfer-Encoding", "chunked"}, {"Transfer-Encoding", "chunked"}};
        QTest::newRow("chunked with parameter") << HeaderList{{"Transfer-Encoding", "chunked;q=1"}};
    }
    void testChunkedAloneIsTheOnlyTransferCoding() {
        // A correctly signed exec: were the coding ignored, the command would run (smuggling).
        QFETCH(HeaderList, codings);
        const QByteArray target = "/v1/workspaces/" + m_ws.toUtf8() + "/exec";
        const QByteArray body = "{\"kind\":\"shell\",\"code\":\"touch /workspace/te-marker\"}";
        HeaderList headers = signedHeaders(m_agent.token(), "POST", target, body, now());
        headers << qMakePair(QByteArray("Content-Type"), QByteArray("application/json")) << codings;
        verifyRejectedAndClosed(buildRequest("POST", target, headers, chunkedBody(body, 8)), 501);
        QVERIFY(!QFile::exists(m_agent.workspaceDir(m_ws) + QStringLiteral("/te-marker")));
    }

    void testChunkedTransferCodingStillRunsTheExec() {
        // Positive control of the test above: the same request with plain `chunked` runs.
        const QByteArray target = "/v1/workspaces/" + m_ws.toUtf8() + "/exec";
        const QByteArray body = "{\"kind\":\"shell\",\"code\":\"touch /workspace/te-ok\"}";
        HeaderList headers = signedHeaders(m_agent.token(), "POST", target, body, now());
        headers << qMakePair(QByteArray("Content-Type"), QByteArray("application/json"))
                << qMakePair(QByteArray("Transfer-Encoding"), QByteArray("Chunked"));
        const RawHttpResponse r = rawRoundTrip(
            m_agent.port(), buildRequest("POST", target, headers, chunkedBody(body, 8)), 30000);
        QVERIFY2(r.status == 200, r.body.constData());
        QVERIFY(QFile::exists(m_agent.workspaceDir(m_ws) + QStringLiteral("/te-ok")));
    }

    void testRequestLineVersion_data() {
        QTest::addColumn<QByteArray>("head");
        QTest::addColumn<int>("status");
        QTest::newRow("no version (HTTP/0.9 style)") << QByteArray("GET /health\r\n\r\n") << 400;
        QTest::newRow("no version, with a header")
            << QByteArray("GET /health\r\nHost: x\r\n\r\n") << 400;
        QTest::newRow("lowercase http") << QByteArray("GET /health http/1.1\r\n\r\n") << 400;
        QTest::newRow("two spaces") << QByteArray("GET  /health HTTP/1.1\r\n\r\n") << 400;
        QTest::newRow("trailing word")
            << QByteArray("GET /health HTTP/1.1 x\r\nHost: x\r\n\r\n") << 400;
        QTest::newRow("HTTP/0.9") << QByteArray("GET /health HTTP/0.9\r\n\r\n") << 505;
        QTest::newRow("HTTP/2.0") << QByteArray("GET /health HTTP/2.0\r\nHost: x\r\n\r\n") << 505;
        QTest::newRow("HTTP/1.2") << QByteArray("GET /health HTTP/1.2\r\nHost: x\r\n\r\n") << 505;
    }
    void testRequestLineVersion() {
        QFETCH(QByteArray, head);
        QFETCH(int, status);
        verifyRejectedAndClosed(head, status);
    }

    void testHttp10AndLeadingEmptyLineAreServed() {
        // Positive controls: HTTP/1.0 and one CRLF before the request line (RFC 9112 §2.2).
        RawHttpResponse r = rawRoundTrip(m_agent.port(), "GET /health HTTP/1.0\r\n\r\n");
        QCOMPARE(r.status, 200);
        r = rawRoundTrip(m_agent.port(), "\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n");
        QCOMPARE(r.status, 200);
    }

    void testLineTerminatorsOtherThanCrlfAre400_data() {
        QTest::addColumn<QByteArray>("head");
        QTest::newRow("bare LF everywhere") << QByteArray("GET /health HTTP/1.1\nHost: x\n\n");
        QTest::newRow("bare LF after the request line")
            << QByteArray("GET /health HTTP/1.1\nHost: x\r\n\r\n");
        QTest::newRow("bare LF ending the head")
            << QByteArray("GET /health HTTP/1.1\r\nHost: x\r\n\n");
        QTest::newRow("bare CR") << QByteArray("GET /health HTTP/1.1\rHost: x\r\n\r\n");
        QTest::newRow("obs-fold") << QByteArray("GET /health HTTP/1.1\r\nHost: x\r\n y\r\n\r\n");
    }
    void testLineTerminatorsOtherThanCrlfAre400() {
        QFETCH(QByteArray, head);
        verifyRejectedAndClosed(head, 400);
    }

    void testBareLfHeadCannotSmuggleASecondRequest() {
        // "X: y\nContent-Length: 5" hidden in one header for a CRLF-only front end.
        const QByteArray target = "/v1/workspaces/" + m_ws.toUtf8() + "/exec";
        const QByteArray body = "{\"kind\":\"shell\",\"code\":\"touch /workspace/lf-marker\"}";
        HeaderList headers = signedHeaders(m_agent.token(), "POST", target, body, now());
        headers << qMakePair(QByteArray("X-Note"), QByteArray("a\nContent-Length: 0"));
        verifyRejectedAndClosed(buildRequest("POST", target, headers, body), 400);
        QVERIFY(!QFile::exists(m_agent.workspaceDir(m_ws) + QStringLiteral("/lf-marker")));
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
    QString m_ws;
};

QTEST_GUILESS_MAIN(TestHttpFraming)
#include "test_http_framing.moc"
