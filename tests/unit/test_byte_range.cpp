// ByteRange and EntityTag: the Range / If-None-Match / If-Range rules of RFC 9110 §13–§14 as
// the file API applies them (one range; anything the server may ignore selects the whole file).
#include "agent/files/ByteRange.h"

#include <QTest>

using namespace runbox::files;
using Kind = ByteRange::Kind;

Q_DECLARE_METATYPE(ByteRange::Kind)

class TestByteRange final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testResolvesOneRange_data() {
        QTest::addColumn<QByteArray>("header");
        QTest::addColumn<qint64>("size");
        QTest::addColumn<Kind>("kind");
        QTest::addColumn<qint64>("first");
        QTest::addColumn<qint64>("length");
        QTest::newRow("no header") << QByteArray() << qint64(100) << Kind::Whole << 0LL << 100LL;
        QTest::newRow("first-last")
            << QByteArray("bytes=0-9") << 100LL << Kind::Partial << 0LL << 10LL;
        QTest::newRow("middle") << QByteArray("bytes=10-19") << 100LL << Kind::Partial << 10LL
                                << 10LL;
        QTest::newRow("open end") << QByteArray("bytes=90-") << 100LL << Kind::Partial << 90LL
                                  << 10LL;
        QTest::newRow("last clamped")
            << QByteArray("bytes=95-1000") << 100LL << Kind::Partial << 95LL << 5LL;
        QTest::newRow("suffix") << QByteArray("bytes=-10") << 100LL << Kind::Partial << 90LL
                                << 10LL;
        QTest::newRow("suffix longer than file")
            << QByteArray("bytes=-1000") << 100LL << Kind::Partial << 0LL << 100LL;
        QTest::newRow("unit case and spaces")
            << QByteArray(" Bytes = 1-2 ") << 100LL << Kind::Partial << 1LL << 2LL;
        QTest::newRow("empty list elements")
            << QByteArray("bytes=,1-2,") << 100LL << Kind::Partial << 1LL << 2LL;
        QTest::newRow("huge last saturates") << QByteArray("bytes=0-99999999999999999999999")
                                             << 100LL << Kind::Partial << 0LL << 100LL;
        QTest::newRow("first beyond end")
            << QByteArray("bytes=100-") << 100LL << Kind::Unsatisfiable << 0LL << 0LL;
        QTest::newRow("huge first") << QByteArray("bytes=99999999999999999999999-") << 100LL
                                    << Kind::Unsatisfiable << 0LL << 0LL;
        QTest::newRow("zero suffix")
            << QByteArray("bytes=-0") << 100LL << Kind::Unsatisfiable << 0LL << 0LL;
        QTest::newRow("empty file")
            << QByteArray("bytes=0-") << 0LL << Kind::Unsatisfiable << 0LL << 0LL;
        QTest::newRow("empty file suffix")
            << QByteArray("bytes=-5") << 0LL << Kind::Unsatisfiable << 0LL << 0LL;
        // Ignored (whole file): other units, malformed specs, several ranges.
        QTest::newRow("other unit")
            << QByteArray("items=0-1") << 100LL << Kind::Whole << 0LL << 100LL;
        QTest::newRow("last before first")
            << QByteArray("bytes=9-1") << 100LL << Kind::Whole << 0LL << 100LL;
        QTest::newRow("not digits")
            << QByteArray("bytes=a-b") << 100LL << Kind::Whole << 0LL << 100LL;
        QTest::newRow("negative") << QByteArray("bytes=--5") << 100LL << Kind::Whole << 0LL
                                  << 100LL;
        QTest::newRow("no dash") << QByteArray("bytes=5") << 100LL << Kind::Whole << 0LL << 100LL;
        QTest::newRow("several") << QByteArray("bytes=0-1,5-6") << 100LL << Kind::Whole << 0LL
                                 << 100LL;
        QTest::newRow("no equals")
            << QByteArray("bytes 0-1") << 100LL << Kind::Whole << 0LL << 100LL;
    }
    void testResolvesOneRange() {
        QFETCH(QByteArray, header);
        QFETCH(qint64, size);
        QFETCH(Kind, kind);
        QFETCH(qint64, first);
        QFETCH(qint64, length);
        const ByteRange r = ByteRange::parse(header, size);
        QCOMPARE(r.kind, kind);
        if (kind != Kind::Unsatisfiable) {
            QCOMPARE(r.first, first);
            QCOMPARE(r.length, length);
        }
    }

    void testContentRangeHeader() {
        QCOMPARE(ByteRange::parse("bytes=10-19", 100).contentRange(100),
                 QByteArray("bytes 10-19/100"));
        QCOMPARE(ByteRange::parse("bytes=200-", 100).contentRange(100), QByteArray("bytes */100"));
    }

    void testIfNoneMatchUsesWeakComparison() {
        const QByteArray tag = "\"abc\"";
        QVERIFY(EntityTag::noneMatchHits("\"abc\"", tag));
        QVERIFY(EntityTag::noneMatchHits("W/\"abc\"", tag));
        QVERIFY(EntityTag::noneMatchHits("\"x\", \"abc\"", tag));
        QVERIFY(EntityTag::noneMatchHits(" * ", tag));
        QVERIFY(!EntityTag::noneMatchHits("\"abd\"", tag));
        QVERIFY(!EntityTag::noneMatchHits("abc", tag));
    }

    void testIfRangeNeedsTheStrongTag() {
        const QByteArray tag = "\"abc\"";
        QVERIFY(EntityTag::ifRangeMatches("\"abc\"", tag));
        QVERIFY(!EntityTag::ifRangeMatches("W/\"abc\"", tag));
        QVERIFY(!EntityTag::ifRangeMatches("\"abd\"", tag));
        QVERIFY(!EntityTag::ifRangeMatches("Wed, 21 Oct 2015 07:28:00 GMT", tag));
    }
};

QTEST_GUILESS_MAIN(TestByteRange)
#include "test_byte_range.moc"
