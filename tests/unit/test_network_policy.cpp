#include "agent/egress/NetworkPolicy.h"
#include "agent/http/ErrorStatus.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace runbox;
using namespace runbox::egress;

namespace {

QJsonObject allowlist(const QStringList& domains, const QStringList& cidrs = {}) {
    return QJsonObject{{"mode", "domain-allowlist"},
                       {"allowedDomains", QJsonArray::fromStringList(domains)},
                       {"allowPrivateCidrs", QJsonArray::fromStringList(cidrs)}};
}

NetworkPolicy parse(const QJsonObject& object) {
    Error error;
    const std::optional<NetworkPolicy> policy = NetworkPolicy::fromJson(object, &error);
    if (!policy)
        qFatal("unexpected refusal: %s", qPrintable(error.message));
    return *policy;
}

QStringList domains(const NetworkPolicy& policy) {
    QStringList out;
    for (const DomainEntry& entry : policy.allowedDomains())
        out.append(entry.toString());
    return out;
}

} // namespace

class TestNetworkPolicy final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testDefaultIsNoneWithRevisionNone() {
        const NetworkPolicy policy;
        QCOMPARE(policy.mode(), NetworkPolicy::Mode::None);
        QCOMPARE(policy.revision(), QStringLiteral("none"));
        QCOMPARE(policy.toJson().value("revision").toString(), QStringLiteral("none"));
        QVERIFY(!policy.allows("example.org", 443));
    }

    void testModeNoneHasRevisionNoneAndAllowsNothing() {
        const NetworkPolicy policy =
            parse(QJsonObject{{"mode", "none"}, {"allowedDomains", QJsonArray{"example.org"}}});
        QCOMPARE(policy.revision(), QStringLiteral("none"));
        QVERIFY(!policy.allows("example.org", 443));
    }

    void testEntriesAreTrimmedLowerCasedDedupedAndSorted() {
        const NetworkPolicy policy =
            parse(allowlist({" PyPI.org. ", "*.PythonHosted.ORG", "pypi.org", "b.example:8443",
                             "a.example", "*.pythonhosted.org."}));
        QCOMPARE(domains(policy),
                 (QStringList{"*.pythonhosted.org", "a.example", "b.example:8443", "pypi.org"}));
    }

    void testIdnNamesBecomePunycode() {
        const NetworkPolicy policy = parse(allowlist({"Bücher.example", "*.bücher.example:443"}));
        QCOMPARE(domains(policy),
                 (QStringList{"*.xn--bcher-kva.example:443", "xn--bcher-kva.example"}));
        QVERIFY(policy.allows("xn--bcher-kva.example", 80));
        // The host asked for is canonicalised by the same grammar as the entries.
        QVERIFY(policy.allows(QStringLiteral("BÜCHER.example."), 80));
        QVERIFY(policy.allows(QStringLiteral("www.bücher.example"), 443));
        QVERIFY(!policy.allows(QStringLiteral("www.bücher.example"), 80));
    }

    void testRefusedEntriesNameTheEntry_data() {
        QTest::addColumn<QString>("entry");
        for (const char* ip : {"10.0.0.1", "127.1", "2130706433", "0x7f.1", "0177.0.0.1", "[::1]",
                               "::1", "fe80::1", "[::ffff:7f00:1]:443", "*.10.0.0.1", "1.2.3.4:80",
                               "\uff11\uff12\uff17.\uff10.\uff10.\uff11"})
            QTest::addRow("ip %s", ip) << QString::fromUtf8(ip);
        QTest::newRow("slash") << "example.org/simple";
        QTest::newRow("at") << "user@example.org";
        QTest::newRow("inner space") << "exa mple.org";
        QTest::newRow("tab") << "example.org\t.evil";
        QTest::newRow("single label") << "localhost";
        QTest::newRow("single label dot") << "org.";
        QTest::newRow("wildcard tld") << "*.org";
        QTest::newRow("port 0") << "example.org:0";
        QTest::newRow("port 65536") << "example.org:65536";
        QTest::newRow("port empty") << "example.org:";
        QTest::newRow("port sign") << "example.org:+80";
        QTest::newRow("port name") << "example.org:https";
        QTest::newRow("star inside") << "a.*.example.org";
        QTest::newRow("star glued") << "*example.org";
        QTest::newRow("underscore") << "foo_bar.example.org";
        QTest::newRow("leading hyphen") << "-a.example.org";
        QTest::newRow("empty label") << "a..example.org";
        QTest::newRow("long label") << QString(64, QLatin1Char('a')) + ".example.org";
        QTest::newRow("percent") << "exa%6dple.org";
    }
    void testRefusedEntriesNameTheEntry() {
        QFETCH(QString, entry);
        Error error;
        QVERIFY(!NetworkPolicy::fromJson(allowlist({"ok.example", entry}), &error));
        QCOMPARE(http::httpStatus(error.kind), 400);
        QCOMPARE(error.code, QStringLiteral("invalid_network_policy"));
        QVERIFY2(error.message.contains(entry), qPrintable(error.message));
    }

    void testEmptyEntriesAreRefused() {
        Error error;
        QVERIFY(!NetworkPolicy::fromJson(allowlist({"ok.example", "   "}), &error));
        QCOMPARE(error.code, QStringLiteral("invalid_network_policy"));
    }

    void testAllowlistWithoutEntriesIsRefused() {
        Error error;
        QVERIFY(!NetworkPolicy::fromJson(allowlist({}), &error));
        QCOMPARE(http::httpStatus(error.kind), 400);
        QVERIFY(error.message.contains("at least one"));
        QVERIFY(!NetworkPolicy::fromJson(QJsonObject{{"mode", "domain-allowlist"}}, &error));
    }

    void testShapeErrorsAreRefused_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::newRow("no mode") << QByteArray(R"({"allowedDomains":["a.example"]})");
        QTest::newRow("bad mode") << QByteArray(R"({"mode":"open"})");
        QTest::newRow("unknown field") << QByteArray(R"({"mode":"none","allowAll":true})");
        QTest::newRow("domains not array")
            << QByteArray(R"({"mode":"domain-allowlist","allowedDomains":"a.example"})");
        QTest::newRow("entry not string")
            << QByteArray(R"({"mode":"domain-allowlist","allowedDomains":[42]})");
        QTest::newRow("cidrs not array")
            << QByteArray(R"({"mode":"none","allowPrivateCidrs":"10.0.0.0/8"})");
    }
    void testShapeErrorsAreRefused() {
        QFETCH(QByteArray, json);
        Error error;
        QVERIFY(!NetworkPolicy::fromJson(QJsonDocument::fromJson(json).object(), &error));
        QCOMPARE(http::httpStatus(error.kind), 400);
        QCOMPARE(error.code, QStringLiteral("invalid_network_policy"));
    }

    void testCidrsAreCanonicalised() {
        const NetworkPolicy policy =
            parse(allowlist({"a.example"}, {"10.1.2.3/8", "::ffff:127.0.0.0/104", "FD00::1/8",
                                            "192.168.1.1", " 10.0.0.0/8 "}));
        QStringList cidrs;
        for (const Cidr& cidr : policy.allowPrivateCidrs())
            cidrs.append(cidr.toString());
        QCOMPARE(cidrs, (QStringList{"10.0.0.0/8", "127.0.0.0/8", "192.168.1.1/32", "fd00::/8"}));
    }

    void testBadCidrsAreRefusedNamingTheEntry_data() {
        QTest::addColumn<QString>("cidr");
        QTest::newRow("prefix too long") << "10.0.0.0/33";
        QTest::newRow("name") << "mirror.example";
        QTest::newRow("negative") << "10.0.0.0/-1";
        QTest::newRow("garbage") << "10.0.0.0/8/8";
        QTest::newRow("v6 too long") << "fd00::/129";
    }
    void testBadCidrsAreRefusedNamingTheEntry() {
        QFETCH(QString, cidr);
        Error error;
        QVERIFY(!NetworkPolicy::fromJson(allowlist({"a.example"}, {cidr}), &error));
        QCOMPARE(error.code, QStringLiteral("invalid_network_policy"));
        QVERIFY2(error.message.contains(cidr), qPrintable(error.message));
    }

    void testRevisionIsStableUnderNormalisation() {
        const NetworkPolicy a =
            parse(allowlist({"pypi.org", "*.pythonhosted.org"}, {"10.0.0.0/8"}));
        const NetworkPolicy b =
            parse(allowlist({"*.PythonHosted.org.", " PYPI.org", "pypi.org"}, {"10.9.9.9/8"}));
        QCOMPARE(a.revision(), b.revision());
        QCOMPARE(a.revision().size(), 64);
        QVERIFY(QByteArray::fromHex(a.revision().toLatin1()).toHex() == a.revision().toLatin1());
        QCOMPARE(a.canonicalJson(), b.canonicalJson());
    }

    void testRevisionChangesWithEveryPart() {
        const QString base = parse(allowlist({"pypi.org"})).revision();
        QVERIFY(base != parse(allowlist({"pypi.org", "x.example"})).revision());
        QVERIFY(base != parse(allowlist({"pypi.org:443"})).revision());
        QVERIFY(base != parse(allowlist({"*.pypi.org"})).revision());
        QVERIFY(base != parse(allowlist({"pypi.org"}, {"10.0.0.0/8"})).revision());
        QVERIFY(parse(allowlist({"pypi.org"}, {"10.0.0.0/8"})).revision() !=
                parse(allowlist({"pypi.org"}, {"10.0.0.0/16"})).revision());
    }

    void testToJsonRoundTripsWithRevision() {
        const NetworkPolicy policy =
            parse(allowlist({"pypi.org", "*.a.example:8080"}, {"fd00::/8"}));
        const QJsonObject json = policy.toJson();
        QCOMPARE(json.value("revision").toString(), policy.revision());
        QCOMPARE(json.value("mode").toString(), QStringLiteral("domain-allowlist"));
        QCOMPARE(json.value("allowedDomains").toArray().size(), 2);
        QCOMPARE(parse(json).revision(), policy.revision());
    }

    void testWildcardMatchesSubdomainsAtAnyDepthOnly() {
        const NetworkPolicy policy = parse(allowlist({"*.example.org"}));
        QVERIFY(policy.allows("a.example.org", 443)); // positive control
        QVERIFY(policy.allows("a.b.c.example.org", 80));
        QVERIFY(!policy.allows("example.org", 443));
        QVERIFY(!policy.allows("evilexample.org", 443));
        QVERIFY(!policy.allows("a.evilexample.org", 443));
        QVERIFY(!policy.allows("example.org.evil.test", 443));
        QVERIFY(!policy.allows("a.example.org.evil.test", 443));
        QVERIFY(!policy.allows(".example.org", 443));
    }

    void testExactEntryMatchesOnlyItself() {
        const NetworkPolicy policy = parse(allowlist({"example.org"}));
        QVERIFY(policy.allows("example.org", 443));
        QVERIFY(!policy.allows("a.example.org", 443));
        QVERIFY(!policy.allows("evilexample.org", 443));
        QVERIFY(!policy.allows("example.org.evil.test", 443));
        QVERIFY(!policy.allows("example.or", 443));
    }

    void testPortEntriesMatchOnlyTheirPort() {
        const NetworkPolicy policy = parse(allowlist({"a.example:8443", "b.example"}));
        QVERIFY(policy.allows("a.example", 8443));
        QVERIFY(!policy.allows("a.example", 443));
        QVERIFY(policy.allows("b.example", 1));
        QVERIFY(policy.allows("b.example", 65535));
    }

    void testMatchingFoldsCaseAndOneTrailingDot() {
        const NetworkPolicy policy = parse(allowlist({"example.org"}));
        QVERIFY(policy.allows("EXAMPLE.Org", 443));
        QVERIFY(policy.allows("example.org.", 443));
        QVERIFY(!policy.allows("example.org..", 443));
    }

    void testIpTargetsNeverMatch() {
        const NetworkPolicy policy = parse(allowlist({"example.org"}));
        for (const char* ip : {"127.0.0.1", "2130706433", "0x7f.1", "[::1]", "::1", "0"})
            QVERIFY2(!policy.allows(QString::fromLatin1(ip), 443), ip);
    }
};

QTEST_GUILESS_MAIN(TestNetworkPolicy)
#include "test_network_policy.moc"
