// The shared network-policy grammar: what the console marks as refused must be exactly what the
// agent refuses (shared/NetworkPolicyGrammar.h).
#include "shared/NetworkPolicyGrammar.h"

#include <QTest>

using runbox::DomainRule;
using runbox::NetworkPolicyGrammar;

class TestNetworkPolicyGrammar final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testGoodEntriesAreCanonicalised_data() {
        QTest::addColumn<QString>("entry");
        QTest::addColumn<QString>("canonical");
        QTest::newRow("plain") << "pypi.org"
                               << "pypi.org";
        QTest::newRow("upper, spaces, trailing dot") << "  PyPI.Org. "
                                                     << "pypi.org";
        QTest::newRow("wildcard") << "*.pythonhosted.org"
                                  << "*.pythonhosted.org";
        QTest::newRow("port") << "example.org:443"
                              << "example.org:443";
        QTest::newRow("wildcard and port") << "*.Example.org:8080"
                                           << "*.example.org:8080";
        QTest::newRow("idn to punycode") << "bücher.example"
                                         << "xn--bcher-kva.example";
        QTest::newRow("hyphen inside") << "my-mirror.internal.test"
                                       << "my-mirror.internal.test";
    }
    void testGoodEntriesAreCanonicalised() {
        QFETCH(QString, entry);
        QFETCH(QString, canonical);
        QString error;
        const auto rule = NetworkPolicyGrammar::parseDomain(entry, &error);
        QVERIFY2(rule.has_value(), qPrintable(error));
        QCOMPARE(rule->toString(), canonical);
    }

    void testBadEntriesAreRefusedWithAReason_data() {
        QTest::addColumn<QString>("entry");
        QTest::addColumn<QString>("reasonPart");
        QTest::newRow("empty") << "   "
                               << "empty";
        QTest::newRow("dotted ip") << "127.0.0.1"
                                   << "IP literal";
        QTest::newRow("decimal ip") << "2130706433"
                                    << "IP literal";
        QTest::newRow("octal ip") << "0177.0.0.1"
                                  << "IP literal";
        QTest::newRow("hex ip") << "0x7f.1"
                                << "IP literal";
        QTest::newRow("short ip") << "127.1"
                                  << "IP literal";
        QTest::newRow("bracketed v6") << "[::1]"
                                      << "IP literal";
        QTest::newRow("bare v6") << "::ffff:7f00:1"
                                 << "IP literal";
        QTest::newRow("ip with port") << "10.0.0.1:80"
                                      << "IP literal";
        QTest::newRow("slash") << "example.org/path"
                               << "'/'";
        QTest::newRow("userinfo") << "user@example.org"
                                  << "'@'";
        QTest::newRow("inner space") << "exa mple.org"
                                     << "whitespace";
        QTest::newRow("single label") << "localhost"
                                      << "single label";
        QTest::newRow("wildcard tld") << "*.org"
                                      << "single label";
        QTest::newRow("inner star") << "a.*.example.org"
                                    << "'*'";
        QTest::newRow("port zero") << "example.org:0"
                                   << "port";
        QTest::newRow("port too big") << "example.org:65536"
                                      << "port";
        QTest::newRow("port not digits") << "example.org:+80"
                                         << "port";
        QTest::newRow("empty port") << "example.org:"
                                    << "port";
        QTest::newRow("underscore") << "my_host.example.org"
                                    << "labels";
        QTest::newRow("leading hyphen") << "-bad.example.org"
                                        << "";
        QTest::newRow("empty label") << "a..example.org"
                                     << "";
        QTest::newRow("long label") << QString(64, u'a') + QStringLiteral(".org") << "";
    }
    void testBadEntriesAreRefusedWithAReason() {
        QFETCH(QString, entry);
        QFETCH(QString, reasonPart);
        QString error;
        const auto rule = NetworkPolicyGrammar::parseDomain(entry, &error);
        QVERIFY2(!rule.has_value(), qPrintable(rule ? rule->toString() : QString()));
        QVERIFY(!error.isEmpty());
        QVERIFY2(error.contains(reasonPart, Qt::CaseInsensitive), qPrintable(error));
    }

    void testWildcardMatchesSubdomainsOnlyOnWholeLabels() {
        // Positive control first: the wildcard does admit a subdomain at any depth.
        const DomainRule rule = *NetworkPolicyGrammar::parseDomain(QStringLiteral("*.example.org"));
        QVERIFY(rule.matches(QStringLiteral("a.example.org"), 443));
        QVERIFY(rule.matches(QStringLiteral("a.b.c.example.org"), 80));
        QVERIFY(!rule.matches(QStringLiteral("example.org"), 443));
        QVERIFY(!rule.matches(QStringLiteral("evilexample.org"), 443));
        QVERIFY(!rule.matches(QStringLiteral("example.org.evil.test"), 443));
    }

    void testPortRuleMatchesOnlyItsPort() {
        const DomainRule rule = *NetworkPolicyGrammar::parseDomain(QStringLiteral("pypi.org:443"));
        QVERIFY(rule.matches(QStringLiteral("pypi.org"), 443));
        QVERIFY(!rule.matches(QStringLiteral("pypi.org"), 80));
        const DomainRule any = *NetworkPolicyGrammar::parseDomain(QStringLiteral("pypi.org"));
        QVERIFY(any.matches(QStringLiteral("pypi.org"), 80));
        QVERIFY(any.matches(QStringLiteral("pypi.org"), 8443));
    }

    void testListIsDeduplicatedSortedAndRefusalsIndexed() {
        const auto result = NetworkPolicyGrammar::parseDomainList(
            {QStringLiteral("pypi.org"), QStringLiteral("10.1.2.3"), QStringLiteral("PYPI.org."),
             QStringLiteral("*.pythonhosted.org"), QStringLiteral("bad host")});
        QCOMPARE(result.rules.size(), 2);
        QCOMPARE(result.rules.at(0).toString(), QStringLiteral("*.pythonhosted.org"));
        QCOMPARE(result.rules.at(1).toString(), QStringLiteral("pypi.org"));
        QCOMPARE(result.refused.size(), 2);
        QCOMPARE(result.refused.at(0).first, 1);
        QCOMPARE(result.refused.at(1).first, 4);
    }

    void testHostCheckAnswersLikeTheGateway() {
        const auto list = NetworkPolicyGrammar::parseDomainList(
            {QStringLiteral("pypi.org"), QStringLiteral("*.pythonhosted.org:443")});
        auto verdict = NetworkPolicyGrammar::check(list.rules, QStringLiteral("PyPI.org:443"));
        QVERIFY2(verdict.allowed, qPrintable(verdict.reason));
        QCOMPARE(verdict.matchedBy, QStringLiteral("pypi.org"));
        verdict =
            NetworkPolicyGrammar::check(list.rules, QStringLiteral("files.pythonhosted.org:443"));
        QVERIFY2(verdict.allowed, qPrintable(verdict.reason));
        verdict =
            NetworkPolicyGrammar::check(list.rules, QStringLiteral("files.pythonhosted.org:80"));
        QVERIFY(!verdict.allowed);
        verdict = NetworkPolicyGrammar::check(list.rules, QStringLiteral("files.pythonhosted.org"));
        QVERIFY(verdict.allowed);
        QVERIFY2(verdict.reason.contains(QStringLiteral("443")), qPrintable(verdict.reason));
        verdict = NetworkPolicyGrammar::check(list.rules, QStringLiteral("pythonhosted.org"));
        QVERIFY(!verdict.allowed);
        verdict = NetworkPolicyGrammar::check(list.rules, QStringLiteral("evilpypi.org"));
        QVERIFY(!verdict.allowed);
        for (const char* ip : {"127.0.0.1", "[::1]:443", "2130706433", "0x7f.1:80"}) {
            verdict = NetworkPolicyGrammar::check(list.rules, QString::fromLatin1(ip));
            QVERIFY2(!verdict.allowed, ip);
            QVERIFY2(verdict.reason.contains(QStringLiteral("IP")), qPrintable(verdict.reason));
        }
    }

    void testCidrsAreCanonicalised_data() {
        QTest::addColumn<QString>("entry");
        QTest::addColumn<QString>("canonical");
        QTest::newRow("v4") << "10.0.0.0/8"
                            << "10.0.0.0/8";
        QTest::newRow("v4 host bits") << " 192.168.7.9/16 "
                                      << "192.168.0.0/16";
        QTest::newRow("bare v4") << "10.1.2.3"
                                 << "10.1.2.3/32";
        QTest::newRow("v6") << "FD00::1/8"
                            << "fd00::/8";
        QTest::newRow("mapped") << "::ffff:10.0.0.0/104"
                                << "10.0.0.0/8";
    }
    void testCidrsAreCanonicalised() {
        QFETCH(QString, entry);
        QFETCH(QString, canonical);
        QString error;
        const auto cidr = NetworkPolicyGrammar::parseCidr(entry, &error);
        QVERIFY2(cidr.has_value(), qPrintable(error));
        QCOMPARE(*cidr, canonical);
    }

    void testBadCidrsAreRefused() {
        for (const char* bad : {"", "10.0.0.0/33", "example.org", "10.0.0.0/-1", "fd00::/129"}) {
            QString error;
            QVERIFY2(!NetworkPolicyGrammar::parseCidr(QString::fromLatin1(bad), &error), bad);
            QVERIFY(!error.isEmpty());
        }
    }
};

QTEST_GUILESS_MAIN(TestNetworkPolicyGrammar)
#include "test_network_policy_grammar.moc"
