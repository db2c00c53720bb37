#include "agent/egress/TargetParser.h"

#include <QTest>

using namespace runbox::egress;

class TestTargetParser final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testConnectAuthorityIsParsedAndLowerCased() {
        TargetError error;
        const std::optional<Target> target = TargetParser::parseAuthority("PyPI.Org:443", &error);
        QVERIFY(target);
        QCOMPARE(target->host, QStringLiteral("pypi.org"));
        QCOMPARE(target->port, quint16(443));
        QVERIFY(target->pathAndQuery.isEmpty());
    }

    void testEveryIpNotationIsRefusedAsIpLiteral_data() {
        QTest::addColumn<QByteArray>("host");
        for (const char* host : {"127.0.0.1",
                                 "2130706433",
                                 "0177.0.0.1",
                                 "0x7f.1",
                                 "0x7f.0.0.1",
                                 "127.1",
                                 "0",
                                 "0x7f000001",
                                 "017700000001",
                                 "0x7F.0X0.0.1",
                                 "127.0.0.1.",
                                 "1.2.3.09",
                                 "[::1]",
                                 "[::ffff:7f00:1]",
                                 "[::ffff:127.0.0.1]",
                                 "[0:0:0:0:0:0:0:1]",
                                 "[fe80::1%25eth0]",
                                 "[v1.abc]",
                                 "[64:ff9b::7f00:1]",
                                 "example.0x7f",
                                 "example.123"})
            QTest::newRow(host) << QByteArray(host);
    }
    void testEveryIpNotationIsRefusedAsIpLiteral() {
        QFETCH(QByteArray, host);
        QVERIFY(TargetParser::looksLikeIpLiteral(host));
        TargetError error;
        QVERIFY(!TargetParser::parseAuthority(host + ":443", &error));
        QCOMPARE(error.code, QStringLiteral("ip_literal"));
        QVERIFY(!TargetParser::parseAbsoluteForm("http://" + host + "/x", &error));
        QCOMPARE(error.code, QStringLiteral("ip_literal"));
    }

    void testUnbracketedIpv6IsRefusedAsIpLiteral() {
        TargetError error;
        QVERIFY(!TargetParser::parseAuthority("::1:443", &error));
        QCOMPARE(error.code, QStringLiteral("ip_literal"));
        QVERIFY(!TargetParser::parseAuthority("::ffff:7f00:1", &error));
        QCOMPARE(error.code, QStringLiteral("ip_literal"));
    }

    void testNamesThatContainNumbersAreNotIpLiterals() {
        for (const char* host : {"example.test", "0x7f.example.test", "127.example", "1e100.net",
                                 "a1.b2.c3", "xn--bcher-kva.example"})
            QVERIFY2(!TargetParser::looksLikeIpLiteral(host), host);
    }

    void testMalformedTargetsAreRefused_data() {
        QTest::addColumn<QByteArray>("authority");
        QTest::newRow("userinfo") << QByteArray("user@example.test:443");
        QTest::newRow("name userinfo") << QByteArray("example.test@evil.test:443");
        QTest::newRow("brackets around name") << QByteArray("[example.test]:443");
        QTest::newRow("percent") << QByteArray("exa%6dple.test:443");
        QTest::newRow("trailing dot") << QByteArray("EXAMPLE.TEST.:443");
        QTest::newRow("double dot") << QByteArray("example..test:443");
        QTest::newRow("leading dot") << QByteArray(".example.test:443");
        QTest::newRow("no port") << QByteArray("example.test");
        QTest::newRow("empty port") << QByteArray("example.test:");
        QTest::newRow("port 0") << QByteArray("example.test:0");
        QTest::newRow("port 65536") << QByteArray("example.test:65536");
        QTest::newRow("port letters") << QByteArray("example.test:44a");
        QTest::newRow("port sign") << QByteArray("example.test:+443");
        QTest::newRow("underscore") << QByteArray("ex_ample.test:443");
        QTest::newRow("hyphen edge") << QByteArray("-example.test:443");
        QTest::newRow("utf8") << QByteArray("b\xc3\xbc"
                                            "cher.test:443");
        QTest::newRow("nul") << QByteArray("exa\0mple.test:443", 18);
        QTest::newRow("long label") << QByteArray(64, 'a') + ".test:443";
        QTest::newRow("empty") << QByteArray(":443");
        QTest::newRow("unclosed bracket") << QByteArray("[example.test:443");
    }
    void testMalformedTargetsAreRefused() {
        QFETCH(QByteArray, authority);
        TargetError error;
        QVERIFY(!TargetParser::parseAuthority(authority, &error));
        QCOMPARE(error.code, QStringLiteral("malformed_target"));
        QVERIFY(!error.message.isEmpty());
    }

    void testAbsoluteFormGivesOriginFormPath() {
        TargetError error;
        std::optional<Target> t =
            TargetParser::parseAbsoluteForm("http://Mirror.Test/simple/x?y=1", &error);
        QVERIFY(t);
        QCOMPARE(t->host, QStringLiteral("mirror.test"));
        QCOMPARE(t->port, quint16(80));
        QCOMPARE(t->pathAndQuery, QByteArray("/simple/x?y=1"));
        t = TargetParser::parseAbsoluteForm("HTTP://mirror.test:8080", &error);
        QVERIFY(t);
        QCOMPARE(t->port, quint16(8080));
        QCOMPARE(t->pathAndQuery, QByteArray("/"));
        t = TargetParser::parseAbsoluteForm("http://mirror.test?q", &error);
        QVERIFY(t);
        QCOMPARE(t->pathAndQuery, QByteArray("/?q"));
        t = TargetParser::parseAbsoluteForm("http://mirror.test/a%20b", &error);
        QVERIFY(t); // percent-encoding in the path is fine, only the host refuses it
    }

    void testAbsoluteFormRefusals_data() {
        QTest::addColumn<QByteArray>("uri");
        QTest::newRow("origin form") << QByteArray("/index.html");
        QTest::newRow("https") << QByteArray("https://mirror.test/");
        QTest::newRow("ftp") << QByteArray("ftp://mirror.test/");
        QTest::newRow("userinfo") << QByteArray("http://user:pw@mirror.test/");
        QTest::newRow("name userinfo") << QByteArray("http://example.test@evil.test/");
        QTest::newRow("fragment") << QByteArray("http://mirror.test/#x");
        QTest::newRow("percent host") << QByteArray("http://exa%6dple.test/");
        QTest::newRow("empty port") << QByteArray("http://mirror.test:/");
        QTest::newRow("bracket name") << QByteArray("http://[mirror.test]/");
        QTest::newRow("no host") << QByteArray("http:///x");
    }
    void testAbsoluteFormRefusals() {
        QFETCH(QByteArray, uri);
        TargetError error;
        QVERIFY(!TargetParser::parseAbsoluteForm(uri, &error));
        QCOMPARE(error.code, QStringLiteral("malformed_target"));
    }

    void testHostHeaderPortIsOptional() {
        TargetError error;
        std::optional<Target> t = TargetParser::parseHostHeader("Mirror.test", &error);
        QVERIFY(t);
        QCOMPARE(t->host, QStringLiteral("mirror.test"));
        QCOMPARE(t->port, quint16(0));
        t = TargetParser::parseHostHeader("mirror.test:8080", &error);
        QVERIFY(t);
        QCOMPARE(t->port, quint16(8080));
        QVERIFY(!TargetParser::parseHostHeader("127.0.0.1", &error));
    }
};

QTEST_GUILESS_MAIN(TestTargetParser)
#include "test_target_parser.moc"
