// Router: one raw segment per {param}; a trailing {name...} captures the raw rest of the path
// (for WorkspacePath::fromUrlTail to decode once); streaming routes are known from the head.
#include "agent/api/Router.h"

#include <QTest>

using namespace runbox::api;

class TestRouter final : public QObject {
    Q_OBJECT

    Router m_router;
    QString m_hit;

    const RouteHandler* match(const QByteArray& method, const QByteArray& path, PathParams* p,
                              bool* pathMatched = nullptr) {
        bool matched = false;
        return m_router.match(method, path, p, pathMatched ? pathMatched : &matched);
    }

private Q_SLOTS:
    void initTestCase() {
        auto h = [](runbox::http::HttpExchange*, const Principal&, const PathParams&) {};
        m_router.add("GET", QStringLiteral("/v1/workspaces/{id}/files/{path...}"), h);
        m_router.addStreaming("PUT", QStringLiteral("/v1/workspaces/{id}/files/{path...}"), h);
        m_router.add("POST", QStringLiteral("/v1/workspaces/{id}/files:move"), h);
        m_router.add("DELETE", QStringLiteral("/v1/workspaces/{id}"), h);
    }

    void testRestParameterCapturesTheRawTail_data() {
        QTest::addColumn<QByteArray>("path");
        QTest::addColumn<QString>("tail");
        QTest::newRow("one") << QByteArray("/v1/workspaces/w1/files/a.txt") << "a.txt";
        QTest::newRow("nested") << QByteArray("/v1/workspaces/w1/files/a/b/c") << "a/b/c";
        QTest::newRow("encoded kept")
            << QByteArray("/v1/workspaces/w1/files/a%2fb/%2e%2e") << "a%2fb/%2e%2e";
        QTest::newRow("root slash") << QByteArray("/v1/workspaces/w1/files/") << "";
        QTest::newRow("root bare") << QByteArray("/v1/workspaces/w1/files") << "";
        QTest::newRow("empty segments kept")
            << QByteArray("/v1/workspaces/w1/files//etc/passwd") << "/etc/passwd";
        QTest::newRow("dots kept") << QByteArray("/v1/workspaces/w1/files/../x") << "../x";
        QTest::newRow("high bytes") << QByteArray("/v1/workspaces/w1/files/\xc3\xa9") << "\xc3\xa9";
    }
    void testRestParameterCapturesTheRawTail() {
        QFETCH(QByteArray, path);
        QFETCH(QString, tail);
        PathParams p;
        QVERIFY(match("GET", path, &p));
        QCOMPARE(p.value("id"), QStringLiteral("w1"));
        QCOMPARE(p.value("path").toLatin1(), tail.toUtf8());
    }

    void testSegmentParametersStayStrict() {
        PathParams p;
        bool pathMatched = true;
        QVERIFY(!match("GET", "/v1/workspaces/w%2f1/files/a", &p, &pathMatched));
        QVERIFY(!pathMatched);
        QVERIFY(!match("GET", "/v1/workspaces/files/a", &p)); // id missing: "files" is the id
        QVERIFY(match("POST", "/v1/workspaces/w1/files:move", &p));
        QVERIFY(!match("POST", "/v1/workspaces/w1/files:move/x", &p));
        QVERIFY(match("DELETE", "/v1/workspaces/w1", &p));
        QVERIFY(!match("DELETE", "/v1/workspaces/w1/x", &p));
    }

    void testMethodMismatchIs405AndHeadFollowsGet() {
        PathParams p;
        bool pathMatched = false;
        QVERIFY(!match("PATCH", "/v1/workspaces/w1/files/a", &p, &pathMatched));
        QVERIFY(pathMatched);
        QVERIFY(match("HEAD", "/v1/workspaces/w1/files/a", &p));
    }

    void testStreamingRoutesAreKnownFromTheHead() {
        QVERIFY(m_router.streamsBody("PUT", "/v1/workspaces/w1/files/a/b"));
        QVERIFY(!m_router.streamsBody("GET", "/v1/workspaces/w1/files/a/b"));
        QVERIFY(!m_router.streamsBody("POST", "/v1/workspaces/w1/files:move"));
        QVERIFY(!m_router.streamsBody("PUT", "/v1/other"));
    }
};

QTEST_GUILESS_MAIN(TestRouter)
#include "test_router.moc"
