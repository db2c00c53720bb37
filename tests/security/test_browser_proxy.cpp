// The port proxy as a browser reaches it (docs/contracts.md "Port proxy for browsers"), real
// agent run as root with light workspaces: a token from POST /v1/workspaces/{id}/proxy-tokens
// opens one workspace's port on an origin of its own, once in a URL (exchanged for a host-only
// HttpOnly cookie), in a header or in that cookie, each request of a kept-alive connection
// checked again; nothing of it reaches the workspace. A real headless Chromium opens a page, an
// SSE stream and a WebSocket served by sandboxed code, in a light and in a strong workspace.
// Every refusal follows a positive control.
#include "BrowserProxyServer.h"
#include "LightAgentFixture.h"

#include "support/RawHttp.h"

#include <QDateTime>
#include <QStandardPaths>
#include <QtTest>

using namespace lightagent;
using browserproxy::kServer;
namespace ts = runbox::testsupport;

namespace {

/// A GET of @p target with Host @p host and @p headers, nothing else.
QByteArray get(const QByteArray& target, const QByteArray& host,
               const QList<QPair<QByteArray, QByteArray>>& headers = {}) {
    QByteArray out = "GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\n";
    for (const auto& [name, value] : headers)
        out += name + ": " + value + "\r\n";
    return out + "\r\n";
}

} // namespace

class TestBrowserProxy final : public QObject {
    Q_OBJECT

private:
    Agent m_agent;
    Workspace m_a, m_b;

    quint16 agentPort() const { return quint16(m_agent.url().port()); }
    QByteArray origin(const Workspace& ws, int port) const {
        return QByteArray::number(port) + '-' + ws.id.toLatin1() +
               ".localhost:" + QByteArray::number(agentPort());
    }
    bool startServer(const Workspace& ws, int port) {
        QJsonObject write{{"argv", QJsonArray{"/bin/sh", "-c", "cat > app.py"}},
                          {"stdin", QString::fromLatin1(kServer)}};
        if (exec(m_agent.client(), ws.id, write).status() != QLatin1String("completed"))
            return false;
        return sh(m_agent.client(), ws.id,
                  QStringLiteral("setsid python3 app.py %1 </dev/null >/dev/null 2>&1 & "
                                 "for i in $(seq 200); do [ -S ~/.runbox/proxy/%1.sock ] && "
                                 "exit 0; sleep 0.05; done; exit 1")
                      .arg(port))
                   .status() == QLatin1String("completed");
    }
    /// POST …/proxy-tokens as workspace @p ws itself (its own token signs).
    ApiResponse mint(const Workspace& ws, const QJsonObject& body) {
        ApiClient client(m_agent.url(), ws.token);
        return client.call("POST", "/v1/workspaces/" + ws.id.toUtf8() + "/proxy-tokens", body);
    }
    QByteArray token(const Workspace& ws, int port, int ttlS = 600) {
        return mint(ws, {{"port", port}, {"ttlS", ttlS}})
            .json()
            .value("token")
            .toString()
            .toLatin1();
    }
    ts::RawHttpResponse roundTrip(const QByteArray& bytes) {
        return ts::rawRoundTrip(agentPort(), bytes);
    }
    QString heads(const Workspace& ws, int port) {
        return QString::fromUtf8(
            sh(m_agent.client(), ws.id, QStringLiteral("cat ~/heads-%1.log").arg(port)).out);
    }
    /// A new strong workspace, made with the agent token; its id is empty on failure.
    Workspace createStrong() {
        const ApiResponse created =
            m_agent.client().call("POST", "/v1/workspaces", QJsonObject{{"isolation", "strong"}});
        const QJsonObject item = created.json().value("workspaces").toArray().first().toObject();
        Workspace ws;
        ws.id = item.value("id").toString();
        ws.token = item.value("token").toString().toUtf8();
        ws.home = m_agent.stateDir() + "/workspaces/" + ws.id; // its /workspace
        return ws;
    }
    /// kServer on @p port as a managed execution of strong workspace @p ws started with
    /// "proxy": true; its execution id once its socket exists, else empty.
    QString startStrongServer(const Workspace& ws, int port) {
        const ApiResponse started = m_agent.client().call(
            "POST", "/v1/executions",
            QJsonObject{{"workspace", ws.id},
                        {"argv", QJsonArray{"/usr/bin/python3", "-c", QString::fromLatin1(kServer),
                                            QString::number(port)}},
                        {"proxy", true},
                        {"executionTimeoutMs", 120000}});
        const QString socketPath = ws.home + QStringLiteral("/.runbox/proxy/%1.sock").arg(port);
        if ((started.status != 201 && started.status != 202) ||
            !waitUntil([&] { return QFileInfo::exists(socketPath); }, 30000))
            return {};
        return started.json().value("executionId").toString();
    }
    void cancel(const QString& execution) {
        m_agent.client().call("POST", "/v1/executions/" + execution.toUtf8() + "/cancel");
    }
    /// The Set-Cookie of a URL token from @p minted on @p ws's origin: 303 to the bare path, a
    /// host-only HttpOnly SameSite=Lax cookie for the whole origin, put in @p cookie.
    void verifyUrlTokenCookie(const Workspace& ws, int port, const ApiResponse& minted,
                              QByteArray* cookie) {
        QCOMPARE(minted.status, 201);
        const QUrl url(minted.json().value("url").toString());
        QCOMPARE(url.host(), QStringLiteral("%1-%2.localhost").arg(port).arg(ws.id));
        QCOMPARE(url.port(), int(agentPort()));
        const QByteArray target = url.toEncoded(QUrl::RemoveScheme | QUrl::RemoveAuthority);
        const ts::RawHttpResponse first = roundTrip(get(target + "&keep=1", origin(ws, port)));
        QCOMPARE(first.status, 303);
        QCOMPARE(first.header("location"), QByteArray("/?keep=1")); // the token left the URL
        *cookie = first.header("set-cookie");
        QVERIFY2(cookie->startsWith("runbox_proxy=rbp1.") && cookie->contains("; HttpOnly") &&
                     cookie->contains("; SameSite=Lax") && cookie->contains("; Path=/") &&
                     !cookie->toLower().contains("domain="),
                 cookie->constData());
    }
    /// The real browser's run of kServer's page: the SSE event and the WebSocket echo came
    /// back, the page's script saw its own cookie only (the proxy's is HttpOnly), and the
    /// workspace got its cookie but nothing of the proxy token.
    static void verifyBrowserRun(const browserproxy::BrowserRun& run) {
        QVERIFY2(run.reported, (run.heads.right(2000) + run.output.right(2000)).constData());
        QVERIFY2(run.heads.contains(browserproxy::kDoneLine), run.heads.right(2000).constData());
        QVERIFY2(run.heads.contains("GET /events") && run.heads.contains("GET /ws"),
                 run.heads.constData());
        QVERIFY2(run.heads.toLower().contains("cookie: app=1"), run.heads.constData()); // control
        QVERIFY2(!run.heads.contains("rbp1.") && !run.heads.toLower().contains("runbox_proxy"),
                 run.heads.constData());
    }

private Q_SLOTS:
    void initTestCase() {
        QString error;
        const QString skip = m_agent.startWithTwoWorkspaces(48000, 200, &m_a, &m_b, &error);
        if (!skip.isEmpty())
            QSKIP(qPrintable(skip));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(startServer(m_a, 9100));
        QVERIFY(startServer(m_b, 9100));
    }

    void testAUrlTokenBecomesAHostOnlyCookieOnce() {
        const ApiResponse minted = mint(m_a, {{"port", 9100}, {"ttlS", 600}});
        const QDateTime expires =
            QDateTime::fromString(minted.json().value("expiresAt").toString(), Qt::ISODate);
        QVERIFY(qAbs(expires.toSecsSinceEpoch() - QDateTime::currentSecsSinceEpoch() - 600) < 5);
        QByteArray cookie;
        verifyUrlTokenCookie(m_a, 9100, minted, &cookie);
        if (QTest::currentTestFailed())
            return;
        const QByteArray target = QUrl(minted.json().value("url").toString())
                                      .toEncoded(QUrl::RemoveScheme | QUrl::RemoveAuthority);
        const QByteArray value = cookie.left(cookie.indexOf(';'));
        const ts::RawHttpResponse page = roundTrip(
            get("/echo?x=1", origin(m_a, 9100), {{"Cookie", "app=1; " + value + "; other=2"}}));
        QCOMPARE(page.status, 200);
        QVERIFY2(page.body.startsWith("GET /echo?x=1 HTTP/1.1"), page.body.constData());
        QVERIFY2(page.body.toLower().contains("cookie: app=1; other=2"), page.body.constData());
        // The same URL a second time (history, a Referer that leaked it) opens nothing.
        const ts::RawHttpResponse again = roundTrip(get(target, origin(m_a, 9100)));
        QCOMPARE(again.status, 401);
        QCOMPARE(again.errorCode(), QStringLiteral("proxy_token_spent"));
    }

    /// What the attack of 2026-12-07 found: a redirect off the origin, an unsigned Host in the
    /// minted URL, an encoded parameter name left in the URL, cookies and headers of the
    /// workspace that reach past its origin.
    void testRedirectsStayOnTheOriginAndTheWorkspaceSetsNoForeignCookie() {
        for (const QByteArray& path :
             {QByteArray("//evil.example/x"), QByteArray("/\\evil.example/x")}) {
            const QByteArray t = token(m_a, 9100);
            const ts::RawHttpResponse r =
                roundTrip(get(path + "?runbox_proxy_token=" + t, origin(m_a, 9100)));
            QCOMPARE(r.status, 303);
            QCOMPARE(r.header("location"), QByteArray("/evil.example/x"));
        }
        const QByteArray encoded = token(m_a, 9100);
        const ts::RawHttpResponse e =
            roundTrip(get("/x?runbox%5Fproxy%5Ftoken=" + encoded + "&a=1", origin(m_a, 9100)));
        QCOMPARE(e.status, 303);
        QCOMPARE(e.header("location"), QByteArray("/x?a=1"));
        // The Host of a signed request is not signed: only its port may reach the URL.
        const QByteArray body = R"({"port":9100})";
        const QByteArray target = "/v1/workspaces/" + m_a.id.toLatin1() + "/proxy-tokens";
        QByteArray request = "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1:1@evil.example\r\n";
        for (const auto& [name, value] : ts::signedHeaders(m_a.token, "POST", target, body,
                                                           QDateTime::currentMSecsSinceEpoch()))
            request += name + ": " + value + "\r\n";
        request +=
            "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) +
            "\r\n\r\n" + body;
        const ts::RawHttpResponse minted = roundTrip(request);
        QCOMPARE(minted.status, 201);
        const QUrl url(QJsonDocument::fromJson(minted.body).object().value("url").toString());
        QCOMPARE(url.host(), QStringLiteral("9100-%1.localhost").arg(m_a.id));
        QVERIFY2(!minted.body.contains("evil"), minted.body.constData());
        // The workspace's Set-Cookie stays host-only; it cannot set the token's cookie or the
        // agent's headers.
        const ts::RawHttpResponse cookies = roundTrip(
            get("/setcookie", origin(m_a, 9100), {{"X-Runbox-Proxy-Token", token(m_a, 9100)}}));
        QCOMPARE(cookies.status, 200);
        QList<QByteArray> setCookies;
        for (const auto& [name, value] : cookies.headers)
            if (name.toLower() == "set-cookie")
                setCookies << value;
        QCOMPARE(setCookies, QList<QByteArray>{"app=1; Path=/"});
        QVERIFY(cookies.header("x-runbox-proxy-token").isEmpty());
    }

    void testTheHeaderTokenWorksAndNothingOfItReachesTheWorkspace() {
        const QByteArray t = token(m_a, 9100);
        const ts::RawHttpResponse r =
            roundTrip(get("/echo", origin(m_a, 9100), {{"X-Runbox-Proxy-Token", t}}));
        QCOMPARE(r.status, 200);
        const QString seen = heads(m_a, 9100);
        QVERIFY2(seen.contains("GET /echo HTTP/1.1"), qPrintable(seen)); // positive control
        QVERIFY2(!seen.contains("rbp1.") && !seen.toLower().contains("runbox_proxy") &&
                     !seen.toLower().contains("x-runbox"),
                 qPrintable(seen));
        QVERIFY2(!seen.contains("X-Forwarded-Prefix"), qPrintable(seen));
    }

    void testForeignExpiredTamperedAndMissingTokensAreRefused() {
        const QByteArray good = token(m_a, 9100, 600);
        QCOMPARE(
            roundTrip(get("/echo", origin(m_a, 9100), {{"X-Runbox-Proxy-Token", good}})).status,
            200);
        struct Case {
            const char* name;
            QByteArray host;
            QList<QPair<QByteArray, QByteArray>> headers;
            const char* code;
        };
        QByteArray tampered = good;
        tampered[tampered.size() - 1] = tampered.endsWith('0') ? '1' : '0';
        const QByteArray shortLived = token(m_a, 9100, 1);
        QTest::qWait(2100);
        const QList<Case> cases{
            {"no token", origin(m_a, 9100), {}, "proxy_token_required"},
            {"another port",
             origin(m_a, 9101),
             {{"X-Runbox-Proxy-Token", good}},
             "proxy_token_invalid"},
            {"another workspace",
             origin(m_b, 9100),
             {{"X-Runbox-Proxy-Token", good}},
             "proxy_token_invalid"},
            {"another workspace's cookie",
             origin(m_b, 9100),
             {{"Cookie", "runbox_proxy=" + good}},
             "proxy_token_invalid"},
            {"tampered",
             origin(m_a, 9100),
             {{"X-Runbox-Proxy-Token", tampered}},
             "proxy_token_invalid"},
            {"expired",
             origin(m_a, 9100),
             {{"X-Runbox-Proxy-Token", shortLived}},
             "proxy_token_expired"},
            {"a signed request's credentials",
             origin(m_a, 9100),
             {{"Authorization", "Bearer " + m_a.token}},
             "proxy_token_required"},
            {"unknown workspace",
             "9100-0123456789abcdef.localhost",
             {{"X-Runbox-Proxy-Token", good}},
             "proxy_token_invalid"},
        };
        for (const Case& c : cases) {
            const ts::RawHttpResponse r = roundTrip(get("/echo", c.host, c.headers));
            QVERIFY2(r.status == 401 && r.errorCode() == QLatin1String(c.code),
                     qPrintable(
                         QStringLiteral("%1: %2 %3").arg(c.name).arg(r.status).arg(r.errorCode())));
        }
        // The signed API is untouched on the agent's own host name.
        QCOMPARE(m_agent.client().call("GET", "/v1/workspaces").status, 200);
    }

    void testEveryRequestOfAKeptAliveConnectionIsCheckedAgain() {
        ts::RawHttpConnection c;
        QVERIFY(c.connectTo(agentPort()));
        QVERIFY(
            c.send(get("/echo", origin(m_a, 9100), {{"X-Runbox-Proxy-Token", token(m_a, 9100)}})));
        QCOMPARE(c.readResponse().status, 200);
        QVERIFY(c.send(get("/echo", origin(m_a, 9100))));
        const ts::RawHttpResponse second = c.readResponse();
        QCOMPARE(second.status, 401);
        QCOMPARE(second.errorCode(), QStringLiteral("proxy_token_required"));
    }

    void testTheTokenRouteRefusesBadInputAndOtherWorkspaces() {
        QCOMPARE(mint(m_a, {{"port", 9100}}).status, 201); // default ttl
        for (const QJsonObject& body :
             {QJsonObject{{"port", 0}}, QJsonObject{{"port", 65536}}, QJsonObject{{"port", "80"}},
              QJsonObject{{"port", 80.5}}, QJsonObject{}})
            QCOMPARE(mint(m_a, body).status, 400);
        for (const QJsonObject& body :
             {QJsonObject{{"port", 80}, {"ttlS", 0}}, QJsonObject{{"port", 80}, {"ttlS", 86401}},
              QJsonObject{{"port", 80}, {"extra", 1}}})
            QCOMPARE(mint(m_a, body).status, 400);
        // A workspace's token mints for its own workspace only.
        ApiClient asA(m_agent.url(), m_a.token);
        QCOMPARE(asA.call("POST", "/v1/workspaces/" + m_b.id.toUtf8() + "/proxy-tokens",
                          QJsonObject{{"port", 9100}})
                     .status,
                 404);
    }

    /// A strong workspace's execution started with "proxy": true may listen on a unix socket
    /// (and on nothing else); without it, it cannot make one.
    void testAStrongWorkspacesProxiedExecutionIsReached() {
        const Workspace strong = createStrong();
        QVERIFY(!strong.id.isEmpty());
        const QString probe =
            QStringLiteral("import socket\n"
                           "def t(name, f):\n"
                           "    try: f(); print(name, 'ok')\n"
                           "    except OSError as e: print(name, 'refused', e.errno)\n"
                           "for f in (socket.AF_UNIX, socket.AF_INET):\n"
                           "    t(f.name, lambda: socket.socket(f).close())\n"
                           "t('dgram', lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM))\n"
                           "t('pair', lambda: socket.socketpair())\n"
                           "def connect():\n"
                           "    s = socket.socket(socket.AF_UNIX); s.bind('l.sock'); s.listen()\n"
                           "    c = socket.socket(socket.AF_UNIX); c.connect('l.sock')\n"
                           "t('connect', connect)\n");
        const Outcome plain =
            exec(m_agent.client(), strong.id, {{"kind", "python"}, {"code", probe}});
        QVERIFY2(plain.out.contains("AF_UNIX refused 1"), qPrintable(plain.describe()));
        const Outcome proxied = exec(m_agent.client(), strong.id,
                                     {{"kind", "python"}, {"code", probe}, {"proxy", true}});
        // A listener only: no pair, no connection, no datagram socket of its own (their buffers
        // and descriptors in flight are memory no bound counts in a strong sandbox).
        for (const char* line : {"AF_UNIX ok", "AF_INET refused 1", "dgram refused 1",
                                 "pair refused 1", "connect refused 1"})
            QVERIFY2(proxied.out.contains(line),
                     qPrintable(QLatin1String(line) + QStringLiteral(": ") + proxied.describe()));
        QCOMPARE(
            exec(m_agent.client(), strong.id, {{"kind", "shell"}, {"code", "true"}, {"proxy", 1}})
                .httpStatus,
            400);
        // The server as a managed execution of its own.
        const QString server = startStrongServer(strong, 9200);
        QVERIFY(!server.isEmpty());
        ApiClient asStrong(m_agent.url(), strong.token);
        const ApiResponse minted =
            asStrong.call("POST", "/v1/workspaces/" + strong.id.toUtf8() + "/proxy-tokens",
                          QJsonObject{{"port", 9200}});
        QCOMPARE(minted.status, 201);
        const ts::RawHttpResponse r = roundTrip(
            get("/echo", origin(strong, 9200),
                {{"X-Runbox-Proxy-Token", minted.json().value("token").toString().toLatin1()}}));
        QVERIFY2(r.status == 200 && r.body.startsWith("GET /echo HTTP/1.1"), r.body.constData());
        // And through the signed route, as for light workspaces.
        const ApiResponse signedRoute =
            asStrong.call("GET", "/v1/workspaces/" + strong.id.toUtf8() + "/proxy/9200/echo");
        QVERIFY2(signedRoute.status == 200 &&
                     signedRoute.body.contains("X-Forwarded-Prefix: /v1/workspaces/"),
                 signedRoute.body.constData());
        cancel(server);
    }

    void testARealBrowserOpensThePageItsSseAndItsWebSocket() {
        const QString url = mint(m_a, {{"port", 9100}}).json().value("url").toString();
        bool missing = false;
        const browserproxy::BrowserRun run = browserproxy::openInChromium(
            url, m_agent.stateDir() + "/chromium", m_a.home + "/heads-9100.log", &missing);
        if (missing)
            QSKIP("not run: no chromium here (Debian's chromium; .ci/run installs it)");
        verifyBrowserRun(run);
        if (QTest::currentTestFailed())
            return;
        const QString seen = heads(m_a, 9100); // as the workspace itself reads it
        QVERIFY2(seen.contains(QLatin1String(browserproxy::kDoneLine)), qPrintable(seen));
    }

    /// The same page, SSE stream and WebSocket served by a managed execution of a strong
    /// workspace started with "proxy": true, opened by the browser through a URL token.
    void testARealBrowserReachesAStrongWorkspacesProxiedExecution() {
        if (QStandardPaths::findExecutable(QStringLiteral("chromium")).isEmpty())
            QSKIP("not run: no chromium here (Debian's chromium; .ci/run installs it)");
        const Workspace strong = createStrong();
        QVERIFY(!strong.id.isEmpty());
        const QString server = startStrongServer(strong, 9300);
        QVERIFY(!server.isEmpty());
        QByteArray cookie; // the strong origin's cookie, as for a light one
        verifyUrlTokenCookie(strong, 9300, mint(strong, {{"port", 9300}}), &cookie);
        if (QTest::currentTestFailed())
            return cancel(server);
        const QString url = mint(strong, {{"port", 9300}}).json().value("url").toString();
        bool missing = false;
        const browserproxy::BrowserRun run =
            browserproxy::openInChromium(url, m_agent.stateDir() + "/chromium-strong",
                                         strong.home + "/heads-9300.log", &missing);
        cancel(server);
        verifyBrowserRun(run);
    }
};

QTEST_GUILESS_MAIN(TestBrowserProxy)
#include "test_browser_proxy.moc"
