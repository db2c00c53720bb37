#include "agent/execution/OutputFramer.h"

#include <QJsonDocument>
#include <QTest>

using namespace runbox::execution;

class TestOutputFramer final : public QObject {
    Q_OBJECT
    static constexpr OutputStream Out = OutputStream::Stdout;
    static constexpr OutputStream Err = OutputStream::Stderr;
private Q_SLOTS:
    void testTextFlowsWithoutNewline() {
        OutputFramer f;
        const auto frames = f.feed(Out, "abc");
        QCOMPARE(frames.size(), 1);
        QCOMPARE(frames[0].toEvent().value("data").toString(), QString("abc"));
        QCOMPARE(frames[0].toEvent().value("type").toString(), QString("stdout"));
    }
    void testOffsetsAreLogicalAcrossBothStreams() {
        OutputFramer f;
        QCOMPARE(f.feed(Out, "ab")[0].offset, 0);
        QCOMPARE(f.feed(Err, "cde")[0].offset, 2);
        QCOMPARE(f.feed(Out, "f")[0].offset, 5);
        QCOMPARE(f.nextOffset(), 6);
        QCOMPARE(f.bytesFed(Out), 3);
        QCOMPARE(f.bytesFed(Err), 3);
    }
    void testSplitEuroSignIsCarriedToTheNextRead() {
        OutputFramer f;
        auto first = f.feed(Out, "x\xe2\x82");
        QCOMPARE(first.size(), 1);
        QCOMPARE(first[0].bytes, QByteArray("x"));
        auto second = f.feed(Out, "\xac\n");
        QCOMPARE(second.size(), 1);
        QCOMPARE(second[0].offset, 1);
        QCOMPARE(second[0].toEvent().value("data").toString(), QString::fromUtf8("\xe2\x82\xac\n"));
    }
    void testCarryIsFlushedWhenTheOtherStreamSpeaksSoRangesStayContiguous() {
        OutputFramer f;
        f.feed(Out, "\xe2\x82");
        const auto frames = f.feed(Err, "E");
        QCOMPARE(frames.size(), 2);
        QCOMPARE(frames[0].stream, Out);
        QCOMPARE(frames[0].offset, 0);
        QCOMPARE(frames[0].bytes, QByteArray("\xe2\x82"));
        QCOMPARE(frames[1].offset, 2);
    }
    void testInvalidBytesAreSentAsBase64AndNeverLost() {
        OutputFramer f;
        const QByteArray raw("\xff\xfe\x80ok\n", 6);
        const auto frames = f.feed(Err, raw);
        QCOMPARE(frames.size(), 1);
        const QJsonObject ev = frames[0].toEvent();
        QVERIFY(!ev.contains("data"));
        QCOMPARE(QByteArray::fromBase64(ev.value("dataBase64").toString().toLatin1()), raw);
    }
    void testIncompleteTailIsFlushedAtTheEnd() {
        OutputFramer f;
        QVERIFY(f.feed(Out, "\xe2\x82").isEmpty());
        const auto tail = f.flush();
        QCOMPARE(tail.size(), 1);
        QCOMPARE(tail[0].bytes, QByteArray("\xe2\x82"));
        QVERIFY(tail[0].toEvent().contains("dataBase64"));
    }
    void testLargeInputIsCutIntoBoundedFramesOnCharacterBoundaries() {
        OutputFramer f(1024);
        QByteArray big;
        for (int i = 0; i < 3000; ++i)
            big += "\xe2\x82\xac"; // 9000 bytes of euro signs
        qint64 expectedOffset = 0;
        QByteArray joined;
        for (const OutputFrame& frame : f.feed(Out, big)) {
            QVERIFY(frame.bytes.size() <= 1024);
            QCOMPARE(frame.offset, expectedOffset);
            QVERIFY(isValidUtf8(frame.bytes.constData(), frame.bytes.size()));
            expectedOffset += frame.bytes.size();
            joined += frame.bytes;
        }
        QCOMPARE(joined, big);
    }
    void testSkipToMovesPastAGap() {
        OutputFramer f(64, 10);
        QCOMPARE(f.feed(Out, "a")[0].offset, 10);
        f.skipTo(100);
        QCOMPARE(f.feed(Out, "b")[0].offset, 100);
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
    void testJsonLineIsTheSameEventAsToEvent_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::newRow("plain") << QByteArray("hello world\n");
        QTest::newRow("quotes and backslashes") << QByteArray("say \"hi\" \\ C:\\dir\n");
        QTest::newRow("short escapes") << QByteArray("a\tb\rc\bd\fe\n");
        QTest::newRow("a few controls") << QByteArray("x\x01y\x1fz padding padding padding pad");
        QTest::newRow("unicode") << QByteArray("\xc3\xa9t\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80");
        QTest::newRow("invalid utf-8") << QByteArray("\xff\xfe\x80ok", 5);
        QTest::newRow("zeros") << QByteArray(4096, '\0');
        QTest::newRow("empty") << QByteArray();
    }
    void testJsonLineIsTheSameEventAsToEvent() {
        QFETCH(QByteArray, bytes);
        const OutputFrame frame{Err, bytes, 12345};
        const QByteArray line = frame.toJsonLine();
        QVERIFY(line.endsWith('\n'));
        QCOMPARE(line.count('\n'), 1);
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(line, &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(doc.object(), frame.toEvent());
    }
    void testControlHeavyTextIsSentAsBase64() {
        const OutputFrame zeros{Out, QByteArray(1000, '\0'), 0};
        QVERIFY(!zeros.sendsAsText()); // valid UTF-8, but 6 bytes of JSON per byte as text
        QCOMPARE(QByteArray::fromBase64(zeros.toEvent().value("dataBase64").toString().toLatin1()),
                 zeros.bytes);
        const OutputFrame log{Out, QByteArray("epoch 1: loss 0.4213, accuracy 0.871\n\x1b[1mdone\x1b[0m\n"), 0};
        QVERIFY(log.sendsAsText()); // newlines are cheap; a few escapes stay text
    }
};

QTEST_GUILESS_MAIN(TestOutputFramer)
#include "test_output_framer.moc"
