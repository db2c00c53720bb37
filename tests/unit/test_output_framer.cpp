#include "agent/execution/OutputFramer.h"

#include <QTest>

using namespace runbox::execution;

class TestOutputFramer final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testTextFlowsWithoutNewline() {
        OutputFramer f;
        const auto frames = f.feed("abc");
        QCOMPARE(frames.size(), 1);
        QCOMPARE(frames[0].bytes, QByteArray("abc"));
        QCOMPARE(frames[0].toEvent("stdout").value("data").toString(), QString("abc"));
    }
    void testSplitEuroSignIsCarriedToTheNextRead() {
        OutputFramer f;
        auto first = f.feed("x\xe2\x82");
        QCOMPARE(first.size(), 1);
        QCOMPARE(first[0].bytes, QByteArray("x"));
        auto second = f.feed("\xac\n");
        QCOMPARE(second.size(), 1);
        QCOMPARE(second[0].offset, 1);
        QCOMPARE(second[0].toEvent("stdout").value("data").toString(),
                 QString::fromUtf8("\xe2\x82\xac\n"));
    }
    void testInvalidBytesAreSentAsBase64AndNeverLost() {
        OutputFramer f;
        const QByteArray raw("\xff\xfe\x80ok\n", 6);
        const auto frames = f.feed(raw);
        QCOMPARE(frames.size(), 1);
        const QJsonObject ev = frames[0].toEvent("stderr");
        QVERIFY(!ev.contains("data"));
        QCOMPARE(QByteArray::fromBase64(ev.value("dataBase64").toString().toLatin1()), raw);
    }
    void testIncompleteTailIsFlushedAtTheEnd() {
        OutputFramer f;
        QVERIFY(f.feed("\xe2\x82").isEmpty());
        const auto tail = f.flush();
        QCOMPARE(tail.size(), 1);
        QCOMPARE(tail[0].bytes, QByteArray("\xe2\x82"));
        QVERIFY(tail[0].toEvent("stdout").contains("dataBase64"));
    }
    void testLargeInputIsCutIntoBoundedFramesOnCharacterBoundaries() {
        OutputFramer f(1024);
        QByteArray big;
        for (int i = 0; i < 3000; ++i)
            big += "\xe2\x82\xac"; // 9000 bytes of euro signs
        qint64 expectedOffset = 0;
        QByteArray joined;
        for (const OutputFrame& frame : f.feed(big)) {
            QVERIFY(frame.bytes.size() <= 1024);
            QCOMPARE(frame.offset, expectedOffset);
            QVERIFY(isValidUtf8(frame.bytes.constData(), frame.bytes.size()));
            expectedOffset += frame.bytes.size();
            joined += frame.bytes;
        }
        QCOMPARE(joined, big);
        QCOMPARE(f.totalBytes(), qint64(big.size()));
    }
    void testStrictValidatorRejectsOverlongAndSurrogates() {
        QVERIFY(isValidUtf8("\xc3\xa9", 2));
        QVERIFY(!isValidUtf8("\xc0\xaf", 2));         // overlong '/'
        QVERIFY(!isValidUtf8("\xed\xa0\x80", 3));     // UTF-16 surrogate
        QVERIFY(!isValidUtf8("\xf4\x90\x80\x80", 4)); // above U+10FFFF
        QCOMPARE(incompleteUtf8Tail("a\xf0\x9f\x98"), 3);
        QCOMPARE(incompleteUtf8Tail("a\xf0\x9f\x98\x80"), 0);
        QCOMPARE(incompleteUtf8Tail("a\x80"), 0);
    }
};

QTEST_GUILESS_MAIN(TestOutputFramer)
#include "test_output_framer.moc"
