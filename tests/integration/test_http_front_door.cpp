// The agent's front door under load (docs/contracts.md, "HTTP front door"), through the real
// binary: a head without a valid token is refused before any body byte is read; buffered
// bodies of all connections share one bound (RUNBOX_MAX_BUFFERED_REQUEST_BYTES); connections
// past the cap (RUNBOX_MAX_CONNECTIONS, default 512) get a 503 instead of a silent wait.
#include "shared/RequestSigner.h"
#include "support/AgentProcess.h"
#include "support/RawHttp.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

#include <memory>
#include <vector>

#include <sys/resource.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {
constexpr qint64 kMiB = 1024 * 1024;
/// The bound the tests set: two 15 MiB bodies fit, a third does not.
constexpr qint64 kBufferedBound = 40 * kMiB;
constexpr qint64 kBigBody = 15 * kMiB;

qint64 now() {
    return QDateTime::currentMSecsSinceEpoch();
}

/// `{"isolation":"strong"}` padded with JSON whitespace to exactly @p size bytes.
QByteArray paddedCreateBody(qint64 size) {
    QByteArray body = "{\"isolation\":\"strong\"}";
    body += QByteArray(qsizetype(size) - body.size(), ' ');
    return body;
}

/// The head of a signed `POST /v1/workspaces` whose body is @p body (not included).
QByteArray signedCreateHead(const QByteArray& token, const QByteArray& body) {
    QByteArray head = "POST /v1/workspaces HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      "Content-Type: application/json\r\nContent-Length: " +
                      QByteArray::number(body.size()) + "\r\n";
    for (const auto& [name, value] :
         RequestSigner::headersFor(token, "POST", "/v1/workspaces", body, now()))
        head += name + ": " + value + "\r\n";
    return head + "\r\n";
}

/// Lets the test open well over 1024 sockets (and the agent, which inherits it, accept them).
void raiseOpenFileLimit() {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        ::setrlimit(RLIMIT_NOFILE, &limit);
    }
}

/// Waits until the agent's RSS stops moving (two reads 200 ms apart within 1 MiB) and returns
/// it in KiB.
qint64 settledRssKiB(const AgentProcess& agent) {
    qint64 last = agent.rssKiB();
    for (int i = 0; i < 25; ++i) {
        QTest::qWait(200);
        const qint64 rss = agent.rssKiB();
        if (qAbs(rss - last) < 1024)
            return rss;
        last = rss;
    }
    return last;
}
} // namespace

class TestHttpFrontDoor final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        raiseOpenFileLimit();
        AgentOptions options;
        options.extraEnv.insert(QStringLiteral("RUNBOX_MAX_BUFFERED_REQUEST_BYTES"),
                                QString::number(kBufferedBound));
        QVERIFY2(m_agent.start(options), qPrintable(m_agent.errorString()));
        m_ws = m_agent.createWorkspace();
        QVERIFY2(!m_ws.isEmpty(), qPrintable(m_agent.errorString()));
    }
    void cleanupTestCase() { QVERIFY2(m_agent.stop(), qPrintable(m_agent.log())); }

    // --- positive controls ---

    void testSignedRequestStillWorks() {
        const int before = m_agent.workspaceCount();
        const QByteArray body = "{\"isolation\":\"strong\"}";
        const RawHttpResponse r =
            rawRoundTrip(m_agent.port(), signedCreateHead(m_agent.token(), body) + body, 30000);
        QVERIFY2(r.status == 201, r.body.constData());
        QCOMPARE(m_agent.workspaceCount(), before + 1);
    }

    void testBigSignedBodyStillGetsThrough() {
        // 12 MiB of stdin through a buffered exec body: read, verified, run, counted.
        const QByteArray target = "/v1/workspaces/" + m_ws.toUtf8() + "/exec";
        const QByteArray body =
            QJsonDocument(QJsonObject{{"argv", QJsonArray{"wc", "-c"}},
                                      {"stdin", QString(12 * 1024 * 1024, QLatin1Char('a'))}})
                .toJson(QJsonDocument::Compact);
        QVERIFY(body.size() < 16 * kMiB);
        const HeaderList headers = signedHeaders(m_agent.token(), "POST", target, body, now());
        const RawHttpResponse r =
            rawRoundTrip(m_agent.port(), buildRequest("POST", target, headers, body), 60000);
        QVERIFY2(r.status == 200, r.body.left(300).constData());
        QVERIFY2(r.body.contains("12582912"), r.body.constData());
    }

    // --- authentication on the head ---

    void testUnauthenticatedBigHeadsAre401WithoutTheirBodies() {
        // 200 heads declaring 15 MiB + 1 each, no token, no body byte: every one is answered
        // 401 at once (before, the agent waited for and held each body), and memory stays flat.
        const qint64 before = settledRssKiB(m_agent);
        QVERIFY(before > 0);
        const QByteArray head = "POST /v1/workspaces/" + m_ws.toUtf8() +
                                "/exec HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                "Content-Type: application/json\r\nContent-Length: " +
                                QByteArray::number(kBigBody + 1) + "\r\n\r\n";
        std::vector<std::unique_ptr<RawHttpConnection>> conns;
        for (int i = 0; i < 200; ++i) {
            auto c = std::make_unique<RawHttpConnection>();
            QVERIFY2(c->connectTo(m_agent.port()), qPrintable(QString::number(i)));
            QVERIFY(c->send(head));
            conns.push_back(std::move(c));
        }
        for (size_t i = 0; i < conns.size(); ++i) {
            const RawHttpResponse r = conns[i]->readResponse(5000);
            QVERIFY2(r.status == 401, qPrintable(QStringLiteral("connection %1: %2 %3")
                                                     .arg(i)
                                                     .arg(r.status)
                                                     .arg(QString::fromUtf8(r.body))));
            QCOMPARE(r.errorCode(), QStringLiteral("unauthorized"));
            QVERIFY(conns[i]->waitForClose(5000));
        }
        const qint64 after = settledRssKiB(m_agent);
        qInfo("RSS before %lld KiB, after 200 unauthenticated 15 MiB heads %lld KiB (+%lld KiB)",
              before, after, after - before);
        QVERIFY2(after - before < 32 * 1024, qPrintable(QString::number(after - before)));
    }

    void testWrongTokenAndForeignWorkspaceAreRefusedOnTheHead() {
        // A wrong token: 401 on the head. A workspace token naming another workspace: 404 on
        // the head. Neither body (15 MiB declared) is ever sent.
        QByteArray wsToken;
        const QString own = m_agent.createWorkspace(&wsToken);
        QVERIFY(!own.isEmpty());
        QByteArray wrong = m_agent.token();
        wrong[0] = wrong[0] == 'a' ? 'b' : 'a';
        const QByteArray foreign = "/v1/workspaces/" + m_ws.toUtf8() + "/exec";
        struct Case {
            QByteArray token;
            int status;
        };
        for (const Case& k : {Case{wrong, 401}, Case{wsToken, 404}}) {
            HeaderList headers = signedHeaders(k.token, "POST", foreign, {}, now());
            headers << qMakePair(QByteArray("Content-Length"), QByteArray::number(kBigBody));
            RawHttpConnection c;
            QVERIFY(c.connectTo(m_agent.port()));
            QVERIFY(c.send(buildRequest("POST", foreign, headers)));
            const RawHttpResponse r = c.readResponse(5000);
            QVERIFY2(r.status == k.status, r.body.constData());
            QVERIFY(c.waitForClose(5000));
        }
    }

    // --- the global bound on buffered request bytes ---

    void testStalledBodiesStayUnderTheGlobalBound() {
        const qint64 before = settledRssKiB(m_agent);
        const QByteArray body = paddedCreateBody(kBigBody);
        // Heads one after the other; each admitted one then sends all but its last body byte.
        std::vector<std::unique_ptr<RawHttpConnection>> admitted;
        int refused = 0;
        for (int i = 0; i < 6; ++i) {
            auto c = std::make_unique<RawHttpConnection>();
            QVERIFY(c->connectTo(m_agent.port()));
            QVERIFY(c->send(signedCreateHead(m_agent.token(), body)));
            const RawHttpResponse early = c->readResponse(1000);
            if (early.status == 0) {
                QVERIFY(c->send(body.left(body.size() - 1), 30000));
                admitted.push_back(std::move(c));
                continue;
            }
            QVERIFY2(early.status == 503, early.body.constData());
            QCOMPARE(early.errorCode(), QStringLiteral("server_busy"));
            QVERIFY(!early.header("Retry-After").isEmpty());
            ++refused;
        }
        QCOMPARE(int(admitted.size()), int(kBufferedBound / kBigBody)); // 2 fit in 40 MiB
        QCOMPARE(refused, 6 - int(admitted.size()));
        const qint64 held = settledRssKiB(m_agent);
        qInfo("RSS before %lld KiB, with %zu stalled 15 MiB bodies %lld KiB (+%lld KiB; bound "
              "%lld KiB)",
              before, admitted.size(), held, held - before, kBufferedBound / 1024);
        QVERIFY2(held - before < kBufferedBound / 1024 + 8 * 1024,
                 qPrintable(QString::number(held - before)));

        // The last byte completes the first body: it is verified (HMAC) and served.
        const int workspaces = m_agent.workspaceCount();
        QVERIFY(admitted[0]->send(body.right(1)));
        const RawHttpResponse done = admitted[0]->readResponse(30000);
        QVERIFY2(done.status == 201, done.body.constData());
        QCOMPARE(m_agent.workspaceCount(), workspaces + 1);
        admitted.clear(); // the other stalled one goes away: its share is given back

        // Room again: a whole big body gets through on a fresh connection.
        QTRY_VERIFY_WITH_TIMEOUT(
            rawRoundTrip(m_agent.port(), signedCreateHead(m_agent.token(), body) + body, 30000)
                    .status == 201,
            10000);
    }

    // --- the connection cap ---

    void testConnectionsPastTheCapGet503() {
        // A fresh agent with the default cap (512) and no other client: 600 idle connections.
        AgentProcess agent;
        QVERIFY2(agent.start(), qPrintable(agent.errorString()));
        constexpr int kCap = 512, kTotal = 600;
        std::vector<std::unique_ptr<RawHttpConnection>> conns;
        for (int i = 0; i < kTotal; ++i) {
            auto c = std::make_unique<RawHttpConnection>();
            QVERIFY2(c->connectTo(agent.port()), qPrintable(QString::number(i)));
            conns.push_back(std::move(c));
        }
        for (int i = kCap; i < kTotal; ++i) {
            const RawHttpResponse r = conns[size_t(i)]->readResponse(5000);
            QVERIFY2(r.status == 503,
                     qPrintable(QStringLiteral("connection %1 got %2").arg(i).arg(r.status)));
            QCOMPARE(r.errorCode(), QStringLiteral("too_many_connections"));
            QVERIFY(!r.header("Retry-After").isEmpty());
            QVERIFY(conns[size_t(i)]->waitForClose(5000));
        }
        // The first 512 were not refused and are still served.
        for (int i : {0, 255, kCap - 1}) {
            RawHttpConnection& c = *conns[size_t(i)];
            QCOMPARE(c.socket().state(), QAbstractSocket::ConnectedState);
            QVERIFY(c.unreadBytes().isEmpty() && c.socket().bytesAvailable() == 0);
            QVERIFY(c.send(buildRequest("GET", "/health", {})));
            const RawHttpResponse r = c.readResponse(5000);
            QVERIFY2(r.status == 200, qPrintable(QString::number(i)));
        }
        const HeaderList auth = signedHeaders(agent.token(), "GET", "/v1/health", {}, now());
        QVERIFY(conns[100]->send(buildRequest("GET", "/v1/health", auth)));
        QCOMPARE(conns[100]->readResponse(5000).status, 200);

        // Closing some frees their places for new connections.
        for (int i = 1; i <= 10; ++i)
            conns[size_t(i)]->socket().abort();
        QTRY_COMPARE_WITH_TIMEOUT(
            rawRoundTrip(agent.port(), buildRequest("GET", "/health", {}), 5000).status, 200, 5000);
        conns.clear();
        QVERIFY2(agent.stop(), qPrintable(agent.log()));
    }

private:
    AgentProcess m_agent;
    QString m_ws;
};

QTEST_GUILESS_MAIN(TestHttpFrontDoor)
#include "test_http_front_door.moc"
