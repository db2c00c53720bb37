#include "agent/egress/AddressClassifier.h"

#include <QTest>

using namespace runbox::egress;

Q_DECLARE_METATYPE(runbox::egress::AddressClass)

class TestAddressClassifier final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testClassifiesEveryRange_data() {
        QTest::addColumn<QString>("address");
        QTest::addColumn<AddressClass>("expected");
        const auto row = [](const char* address, AddressClass expected) {
            QTest::newRow(address) << QString::fromLatin1(address) << expected;
        };
        // Public controls, including the neighbours of every special range.
        for (const char* a : {"8.8.8.8",
                              "1.1.1.1",
                              "93.184.216.34",
                              "9.255.255.255",
                              "11.0.0.0",
                              "100.63.255.255",
                              "100.128.0.0",
                              "126.255.255.255",
                              "128.0.0.0",
                              "169.253.255.255",
                              "169.255.0.0",
                              "172.15.255.255",
                              "172.32.0.0",
                              "192.0.1.255",
                              "192.0.3.0",
                              "192.167.255.255",
                              "192.169.0.0",
                              "198.17.255.255",
                              "198.20.0.0",
                              "203.0.112.255",
                              "203.0.114.0",
                              "223.255.255.255",
                              "2606:4700:4700::1111",
                              "2a00:1450::1",
                              "2001:200::1",
                              "2001:db9::1",
                              "2003::1"})
            row(a, AddressClass::Public);
        row("0.0.0.0", AddressClass::Unspecified);
        row("::", AddressClass::Unspecified);
        row("0.1.2.3", AddressClass::Reserved);
        row("127.0.0.1", AddressClass::Loopback);
        row("127.255.255.254", AddressClass::Loopback);
        row("::1", AddressClass::Loopback);
        row("10.0.0.1", AddressClass::Private);
        row("10.255.255.255", AddressClass::Private);
        row("172.16.0.1", AddressClass::Private);
        row("172.31.255.255", AddressClass::Private);
        row("192.168.1.1", AddressClass::Private);
        row("100.64.0.1", AddressClass::SharedAddressSpace);
        row("100.127.255.255", AddressClass::SharedAddressSpace);
        row("169.254.169.254", AddressClass::LinkLocal);
        row("169.254.0.1", AddressClass::LinkLocal);
        row("fe80::1", AddressClass::LinkLocal);
        row("febf::1", AddressClass::LinkLocal);
        row("224.0.0.1", AddressClass::Multicast);
        row("239.255.255.255", AddressClass::Multicast);
        row("ff02::1", AddressClass::Multicast);
        row("255.255.255.255", AddressClass::Broadcast);
        row("240.0.0.1", AddressClass::Reserved);
        row("255.255.255.254", AddressClass::Reserved);
        row("192.0.0.8", AddressClass::Reserved);
        row("192.88.99.1", AddressClass::Reserved);
        row("192.0.2.1", AddressClass::Documentation);
        row("198.51.100.7", AddressClass::Documentation);
        row("203.0.113.9", AddressClass::Documentation);
        row("2001:db8::1", AddressClass::Documentation);
        row("3fff::1", AddressClass::Documentation);
        row("198.18.0.1", AddressClass::Benchmarking);
        row("198.19.255.255", AddressClass::Benchmarking);
        row("fc00::1", AddressClass::UniqueLocal);
        row("fdff:ffff::1", AddressClass::UniqueLocal);
        row("fec0::1", AddressClass::SiteLocal);
        row("feff::1", AddressClass::SiteLocal);
        row("2001::1", AddressClass::Reserved);      // Teredo
        row("2001:10::1", AddressClass::Reserved);   // ORCHID
        row("64:ff9b:1::1", AddressClass::Reserved); // local-use NAT64
        row("100::1", AddressClass::Reserved);       // discard-only
        row("5f00::1", AddressClass::Reserved);      // SRv6 SIDs
        row("4000::1", AddressClass::Reserved);      // outside 2000::/3
        row("::2:0:0:1", AddressClass::Reserved);
    }
    void testClassifiesEveryRange() {
        QFETCH(QString, address);
        QFETCH(AddressClass, expected);
        const QHostAddress parsed(address);
        QVERIFY2(!parsed.isNull(), qPrintable(address));
        QCOMPARE(toString(AddressClassifier::classify(parsed)), toString(expected));
    }

    void testEmbeddedIpv4IsCanonicalisedAndClassified_data() {
        QTest::addColumn<QString>("address");
        QTest::addColumn<QString>("canonical");
        QTest::addColumn<AddressClass>("expected");
        QTest::newRow("mapped dotted") << "::ffff:127.0.0.1"
                                       << "127.0.0.1" << AddressClass::Loopback;
        QTest::newRow("mapped hex") << "::ffff:7f00:1"
                                    << "127.0.0.1" << AddressClass::Loopback;
        QTest::newRow("mapped metadata") << "::ffff:a9fe:a9fe"
                                         << "169.254.169.254" << AddressClass::LinkLocal;
        QTest::newRow("mapped public") << "::ffff:8.8.8.8"
                                       << "8.8.8.8" << AddressClass::Public;
        QTest::newRow("translated") << "::ffff:0:7f00:1"
                                    << "127.0.0.1" << AddressClass::Loopback;
        QTest::newRow("compatible") << "::127.0.0.1"
                                    << "127.0.0.1" << AddressClass::Loopback;
        QTest::newRow("compatible private") << "::a00:1"
                                            << "10.0.0.1" << AddressClass::Private;
        QTest::newRow("nat64 loopback") << "64:ff9b::7f00:1"
                                        << "127.0.0.1" << AddressClass::Loopback;
        QTest::newRow("nat64 metadata") << "64:ff9b::169.254.169.254"
                                        << "169.254.169.254" << AddressClass::LinkLocal;
        QTest::newRow("nat64 public") << "64:ff9b::808:808"
                                      << "8.8.8.8" << AddressClass::Public;
        QTest::newRow("6to4 loopback") << "2002:7f00:1::1"
                                       << "127.0.0.1" << AddressClass::Loopback;
        QTest::newRow("6to4 private") << "2002:c0a8:101::42"
                                      << "192.168.1.1" << AddressClass::Private;
        QTest::newRow("6to4 cgnat") << "2002:6440:1::"
                                    << "100.64.0.1" << AddressClass::SharedAddressSpace;
        QTest::newRow("6to4 public") << "2002:808:808::1"
                                     << "8.8.8.8" << AddressClass::Public;
    }
    void testEmbeddedIpv4IsCanonicalisedAndClassified() {
        QFETCH(QString, address);
        QFETCH(QString, canonical);
        QFETCH(AddressClass, expected);
        const QHostAddress parsed(address);
        QVERIFY(!parsed.isNull());
        QCOMPARE(AddressClassifier::canonical(parsed), QHostAddress(canonical));
        QCOMPARE(toString(AddressClassifier::classify(parsed)), toString(expected));
    }

    void testPlainAddressesAreTheirOwnCanonicalForm() {
        for (const char* a : {"8.8.8.8", "::1", "::", "2606:4700::1", "fe80::1"})
            QCOMPARE(AddressClassifier::canonical(QHostAddress(a)), QHostAddress(a));
    }

    void testAllowPrivateCidrsOverrideOnlyTheirRange() {
        const QList<Cidr> loopback{Cidr::parse("127.0.0.0/8")};
        QVERIFY(AddressClassifier::isDialable(QHostAddress("8.8.8.8"), {})); // control
        QVERIFY(!AddressClassifier::isDialable(QHostAddress("127.0.0.1"), {}));
        QVERIFY(AddressClassifier::isDialable(QHostAddress("127.0.0.1"), loopback));
        QVERIFY(AddressClassifier::isDialable(QHostAddress("::ffff:127.0.0.1"), loopback));
        QVERIFY(AddressClassifier::isDialable(QHostAddress("64:ff9b::7f00:1"), loopback));
        QVERIFY(!AddressClassifier::isDialable(QHostAddress("169.254.169.254"), loopback));
        QVERIFY(!AddressClassifier::isDialable(QHostAddress("10.0.0.1"), loopback));
        QVERIFY(AddressClassifier::isDialable(QHostAddress("fd00::5"), {Cidr::parse("fd00::/8")}));
        QVERIFY(!AddressClassifier::isDialable(QHostAddress("fe80::5"), {Cidr::parse("fd00::/8")}));
    }

    void testUnspecifiedMulticastBroadcastAreNeverDialable() {
        const QList<Cidr> everything{Cidr::parse("0.0.0.0/0"), Cidr::parse("::/0")};
        QVERIFY(AddressClassifier::isDialable(QHostAddress("10.0.0.1"), everything)); // control
        for (const char* a :
             {"0.0.0.0", "::", "224.0.0.1", "255.255.255.255", "ff02::1", "::ffff:0.0.0.0"})
            QVERIFY2(!AddressClassifier::isDialable(QHostAddress(a), everything), a);
    }

    void testCheckRefusesAMixedAnswerAsAWhole() {
        const AddressCheck check = AddressClassifier::check(
            "mixed.test", {QHostAddress("93.184.216.34"), QHostAddress("127.0.0.1")}, {});
        QVERIFY(!check.allowed);
        QVERIFY(check.dialable.isEmpty());
        QCOMPARE(check.reason, QStringLiteral("address_refused"));
        QVERIFY(check.message.contains("127.0.0.1"));
        QVERIFY(check.message.contains("loopback"));
    }

    void testCheckRefusesAnEmptyAnswer() {
        const AddressCheck check = AddressClassifier::check("empty.test", {}, {});
        QVERIFY(!check.allowed);
        QCOMPARE(check.reason, QStringLiteral("no_addresses"));
    }

    void testCheckKeepsOrderDedupesAndDialsMappedAsIpv4() {
        const AddressCheck check =
            AddressClassifier::check("ok.test",
                                     {QHostAddress("2606:4700::1"), QHostAddress("::ffff:8.8.8.8"),
                                      QHostAddress("8.8.8.8"), QHostAddress("64:ff9b::808:404")},
                                     {});
        QVERIFY(check.allowed);
        QCOMPARE(check.dialable,
                 (QList<QHostAddress>{QHostAddress("2606:4700::1"), QHostAddress("8.8.8.8"),
                                      QHostAddress("64:ff9b::808:404")}));
    }

    void testCidrParsingAndContainment() {
        QCOMPARE(Cidr::parse("10.1.2.3/8").toString(), QStringLiteral("10.0.0.0/8"));
        QCOMPARE(Cidr::parse("::ffff:10.0.0.0/104").toString(), QStringLiteral("10.0.0.0/8"));
        QCOMPARE(Cidr::parse("fd12:3456::1/16").toString(), QStringLiteral("fd12::/16"));
        QVERIFY(!Cidr::parse("10.0.0.0/40").isValid());
        QVERIFY(Cidr::parse("10.0.0.0/8").contains(QHostAddress("10.200.0.1")));
        QVERIFY(!Cidr::parse("10.0.0.0/8").contains(QHostAddress("11.0.0.1")));
    }
};

QTEST_GUILESS_MAIN(TestAddressClassifier)
#include "test_address_classifier.moc"
