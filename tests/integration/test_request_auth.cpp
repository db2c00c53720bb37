// Request signing (docs/contracts.md "Request signing") attacked for real: every forgery gets 401
// and has no effect.
#include "shared/ApiClient.h"
#include "shared/RequestSigner.h"
#include "support/AgentProcess.h"
#include "support/RawHttp.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace runbox;
using namespace runbox::testsupport;

namespace {
const QByteArray kCreateBody = "{\"isolation\":\"strong\"}";

qint64 now() {
    return QDateTime::currentMSecsSinceEpoch();
}

QByteArray execBody(const QString& shellCode) {
    return QJsonDocument(QJsonObject{{"kind", "shell"}, {"code", shellCode}})
        .toJson(QJsonDocument::Compact);
}

/// A complete request signed with @p token for (@p method, @p target, @p body) at @p ts.
QByteArray signedRequest(const QByteArray& token, const QByteArray& method,
                         const QByteArray& target, const QByteArray& body, qint64 ts) {
    HeaderList headers = signedHeaders(token, method, target, body, ts);
    headers << qMakePair(QByteArray("Content-Type"), QByteArray("application/json"));
    return buildRequest(method, target, headers, body);
}
} // namespace

class TestRequestAuth final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString()));
        m_ws = m_agent.createWorkspace(&m_wsToken);
        QVERIFY2(!m_ws.isEmpty(), qPrintable(m_agent.errorString()));
        QVERIFY(!m_wsToken.isEmpty());
    }
    void init() { QFile::remove(markerPath()); }
    void cleanupTestCase() { QVERIFY2(m_agent.stop(), qPrintable(m_agent.log())); }

    void testCorrectlySignedRawRequestIsAccepted() {
        const int before = m_agent.workspaceCount();
        const RawHttpResponse r =
            send(signedRequest(m_agent.token(), "POST", "/v1/workspaces", kCreateBody, now()));
        QVERIFY2(r.status == 201, r.body.constData());
        QCOMPARE(m_agent.workspaceCount(), before + 1);
    }

    void testMissingAuthIs401() {
        const RawHttpResponse r = send(buildRequest(
            "POST", "/v1/workspaces", {{"Content-Type", "application/json"}}, kCreateBody));
        verifyUnauthorized(r);
    }

    void testWrongTokenIs401AndCreatesNothing() {
        const int before = m_agent.workspaceCount();
        QByteArray wrong = m_agent.token();
        wrong[0] = wrong[0] == 'a' ? 'b' : 'a';
        verifyUnauthorized(
            send(signedRequest(wrong, "POST", "/v1/workspaces", kCreateBody, now())));
        QCOMPARE(m_agent.workspaceCount(), before);
    }

    void testTimestampWindow_data() {
        QTest::addColumn<qint64>("skewMs");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("25 s behind (inside the window)") << qint64(-25000) << true;
        QTest::newRow("25 s ahead (inside the window)") << qint64(25000) << true;
        QTest::newRow("31 s behind") << qint64(-31000) << false;
        QTest::newRow("31 s ahead") << qint64(31000) << false;
        QTest::newRow("a day behind") << qint64(-86400000) << false;
    }
    void testTimestampWindow() {
        QFETCH(qint64, skewMs);
        QFETCH(bool, accepted);
        const QByteArray target = "/v1/workspaces/" + m_ws.toUtf8() + "/exec";
        const RawHttpResponse r = send(signedRequest(
            m_agent.token(), "POST", target,
            execBody(QStringLiteral("touch /workspace/auth-marker")), now() + skewMs));
        if (accepted) {
            QVERIFY2(r.status == 200, r.body.constData());
            QVERIFY(QFile::exists(markerPath()));
        } else {
            verifyUnauthorized(r);
            QCOMPARE(r.errorCode(), QStringLiteral("signature_expired"));
            QVERIFY(!QFile::exists(markerPath()));
        }
    }

    void testReplayedNonceIs401AndCreatesNoSecondWorkspace() {
        const int before = m_agent.workspaceCount();
        const QByteArray request =
            signedRequest(m_agent.token(), "POST", "/v1/workspaces", kCreateBody, now());
        const RawHttpResponse first = send(request);
        QVERIFY2(first.status == 201, first.body.constData()); // positive control
        QCOMPARE(m_agent.workspaceCount(), before + 1);
        const RawHttpResponse replay = send(request);
        verifyUnauthorized(replay);
        QCOMPARE(replay.errorCode(), QStringLiteral("replayed_request"));
        QCOMPARE(m_agent.workspaceCount(), before + 1);
    }

    void testReplayedExecRunsNothingTheSecondTime() {
        const QByteArray target = "/v1/workspaces/" + m_ws.toUtf8() + "/exec";
        const QByteArray request =
            signedRequest(m_agent.token(), "POST", target,
                          execBody(QStringLiteral("touch /workspace/auth-marker")), now());
        QCOMPARE(send(request).status, 200);
        QVERIFY(QFile::remove(markerPath()));
        verifyUnauthorized(send(request));
        QVERIFY(!QFile::exists(markerPath()));
    }

    void testTamperedBodyIs401AndRunsNothing() {
        const QByteArray target = "/v1/workspaces/" + m_ws.toUtf8() + "/exec";
        HeaderList headers =
            signedHeaders(m_agent.token(), "POST", target, execBody(QStringLiteral("true")), now());
        const RawHttpResponse r = send(buildRequest(
            "POST", target, headers, execBody(QStringLiteral("touch /workspace/auth-marker"))));
        verifyUnauthorized(r);
        QCOMPARE(r.errorCode(), QStringLiteral("signature_invalid"));
        QVERIFY(!QFile::exists(markerPath()));
    }

    void testTamperedPathIs401AndRunsNothing() {
        const QString other = m_agent.createWorkspace();
        QVERIFY(!other.isEmpty());
        const QByteArray body = execBody(QStringLiteral("touch /workspace/auth-marker"));
        const QByteArray signedTarget = "/v1/workspaces/" + other.toUtf8() + "/exec";
        const QByteArray sentTarget = "/v1/workspaces/" + m_ws.toUtf8() + "/exec";
        const HeaderList headers =
            signedHeaders(m_agent.token(), "POST", signedTarget, body, now());
        verifyUnauthorized(send(buildRequest("POST", sentTarget, headers, body)));
        QVERIFY(!QFile::exists(markerPath()));
        QVERIFY(!QFile::exists(m_agent.workspaceDir(other) + QStringLiteral("/auth-marker")));
    }

    void testTamperedQueryOrMethodIs401() {
        const int before = m_agent.workspaceCount();
        const HeaderList headers =
            signedHeaders(m_agent.token(), "POST", "/v1/workspaces", kCreateBody, now());
        verifyUnauthorized(send(buildRequest("POST", "/v1/workspaces?x=1", headers, kCreateBody)));
        const HeaderList getHeaders =
            signedHeaders(m_agent.token(), "GET", "/v1/workspaces", kCreateBody, now());
        verifyUnauthorized(send(buildRequest("POST", "/v1/workspaces", getHeaders, kCreateBody)));
        QCOMPARE(m_agent.workspaceCount(), before);
    }

    void testMalformedSignatureHeadersAre401_data() {
        QTest::addColumn<QByteArray>("header");
        QTest::addColumn<QByteArray>("value");
        QTest::newRow("uppercase signature") << QByteArray("X-Runbox-Signature") << QByteArray();
        QTest::newRow("short nonce") << QByteArray("X-Runbox-Nonce") << QByteArray("abc");
        QTest::newRow("timestamp with text")
            << QByteArray("X-Runbox-Timestamp") << QByteArray("1e12");
        QTest::newRow("empty signature") << QByteArray("X-Runbox-Signature") << QByteArray("");
    }
    void testMalformedSignatureHeadersAre401() {
        QFETCH(QByteArray, header);
        QFETCH(QByteArray, value);
        HeaderList headers =
            signedHeaders(m_agent.token(), "POST", "/v1/workspaces", kCreateBody, now());
        for (auto& [name, v] : headers)
            if (name.compare(header, Qt::CaseInsensitive) == 0)
                v = value.isNull() ? v.toUpper() : value;
        const int before = m_agent.workspaceCount();
        verifyUnauthorized(send(buildRequest("POST", "/v1/workspaces", headers, kCreateBody)));
        QCOMPARE(m_agent.workspaceCount(), before);
    }

    void testWorkspaceTokenReachesOnlyItsWorkspace() {
        const QString other = m_agent.createWorkspace();
        QVERIFY(!other.isEmpty());
        ApiClient scoped(m_agent.baseUrl(), m_wsToken);

        // Positive control: it runs code in its own workspace.
        const QByteArray touch = execBody(QStringLiteral("touch /workspace/auth-marker"));
        const ApiResponse own =
            scoped.callRaw("POST", "/v1/workspaces/" + m_ws.toUtf8() + "/exec", touch, 30000);
        QVERIFY2(own.status == 200, own.body.constData());
        QVERIFY(QFile::exists(markerPath()));

        const ApiResponse foreign =
            scoped.callRaw("POST", "/v1/workspaces/" + other.toUtf8() + "/exec", touch, 30000);
        QVERIFY2(foreign.status == 404 || foreign.status == 403, foreign.body.constData());
        QVERIFY(!QFile::exists(m_agent.workspaceDir(other) + QStringLiteral("/auth-marker")));

        const ApiResponse create = scoped.callRaw("POST", "/v1/workspaces", kCreateBody, 30000);
        QCOMPARE(create.status, 403);
        const ApiResponse del =
            scoped.callRaw("DELETE", "/v1/workspaces/" + other.toUtf8(), {}, 30000);
        QVERIFY2(del.status == 404 || del.status == 403, del.body.constData());
        QVERIFY(QFile::exists(m_agent.workspaceDir(other)));

        const ApiResponse list = scoped.call("GET", "/v1/workspaces", {}, 30000);
        QCOMPARE(list.status, 200);
        const QJsonArray items = list.json().value("workspaces").toArray();
        QCOMPARE(items.size(), 1);
        QCOMPARE(items.first().toObject().value("id").toString(), m_ws);
    }

    void testWorkspaceTokenOfADeletedWorkspaceIsRefused() {
        QByteArray token;
        const QString doomed = m_agent.createWorkspace(&token);
        QVERIFY(!doomed.isEmpty());
        ApiClient scoped(m_agent.baseUrl(), token);
        QCOMPARE(scoped.call("GET", "/v1/workspaces", {}, 30000).status, 200);
        QCOMPARE(
            m_agent.client()->call("DELETE", "/v1/workspaces/" + doomed.toUtf8(), {}, 30000).status,
            200);
        QCOMPARE(scoped.call("GET", "/v1/workspaces", {}, 30000).status, 401);
    }

private:
    QString markerPath() const {
        return m_agent.workspaceDir(m_ws) + QStringLiteral("/auth-marker");
    }

    RawHttpResponse send(const QByteArray& request) {
        return rawRoundTrip(m_agent.port(), request, 30000);
    }

    static void verifyUnauthorized(const RawHttpResponse& r) {
        QVERIFY2(r.status == 401, r.body.constData());
        QVERIFY2(!r.errorCode().isEmpty(), r.body.constData());
    }

    AgentProcess m_agent;
    QString m_ws;
    QByteArray m_wsToken;
};

QTEST_GUILESS_MAIN(TestRequestAuth)
#include "test_request_auth.moc"
