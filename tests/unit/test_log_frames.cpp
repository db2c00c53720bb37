// The framed log stream codec (shared/LogFrames.h, docs/managed.md "Framed log stream").
#include "shared/LogFrames.h"

#include <QJsonObject>
#include <QTest>

using namespace runbox::logframes;

namespace {

/// What a decoder delivered: output bytes per stream (in order, with the stream of each byte)
/// and the events.
struct Collected {
    QByteArray out, err;
    QByteArray order; ///< '1'/'2' per output piece boundary change, to check interleaving
    QList<QJsonObject> events;
    int pieces = 0;
};

FrameDecoder decoderInto(Collected* c) {
    return FrameDecoder(
        [c](FrameType type, QByteArrayView bytes) {
            ++c->pieces;
            (type == FrameType::Stdout ? c->out : c->err).append(bytes);
            const char tag = type == FrameType::Stdout ? '1' : '2';
            if (!c->order.endsWith(tag))
                c->order.append(tag);
        },
        [c](const QJsonObject& ev) { c->events.append(ev); });
}

QByteArray sampleStream() {
    QByteArray s;
    appendOutput(&s, FrameType::Stdout, QByteArray("hello\n"));
    appendOutput(&s, FrameType::Stderr, QByteArray("\xff\x00\xfe", 3));
    appendEvent(&s, {{"type", "gap"}, {"offset", 9}, {"bytes", 100}});
    appendOutput(&s, FrameType::Stdout, QByteArray(70000, '\0'));
    appendEvent(&s, {{"type", "exit"}, {"status", "completed"}, {"exitCode", 0}});
    return s;
}

} // namespace

class TestLogFrames final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testHeaderIsTypeThreeZeroBytesAndBigEndianLength() {
        QByteArray s;
        appendOutput(&s, FrameType::Stderr, QByteArray(0x010203, 'x'));
        QCOMPARE(s.size(), 8 + 0x010203);
        QCOMPARE(s.left(8), QByteArray("\x02\x00\x00\x00\x00\x01\x02\x03", 8));
        QByteArray e;
        appendEvent(&e, {{"type", "exit"}});
        QCOMPARE(e.left(4), QByteArray("\x03\x00\x00\x00", 4));
        QCOMPARE(e.mid(8), QByteArray(R"({"type":"exit"})"));
    }

    void testWholeStreamDecodesExactly() {
        Collected c;
        FrameDecoder d = decoderInto(&c);
        QVERIFY(d.feed(sampleStream()));
        QVERIFY(d.atFrameBoundary());
        QCOMPARE(c.out, QByteArray("hello\n") + QByteArray(70000, '\0'));
        QCOMPARE(c.err, QByteArray("\xff\x00\xfe", 3));
        QCOMPARE(c.order, QByteArray("121"));
        QCOMPARE(c.events.size(), 2);
        QCOMPARE(c.events[0].value("type").toString(), QStringLiteral("gap"));
        QCOMPARE(c.events[0].value("bytes").toInteger(), 100);
        QCOMPARE(c.events[1].value("status").toString(), QStringLiteral("completed"));
    }

    void testFramesSplitAtEveryPositionDecodeTheSame() {
        const QByteArray s = sampleStream();
        Collected whole;
        QVERIFY(decoderInto(&whole).feed(s));
        // Two pieces split at every position in the first 200 bytes and around the big frame,
        // and one byte at a time for the head of the stream.
        QList<qsizetype> cuts;
        for (qsizetype i = 0; i <= 200; ++i)
            cuts << i;
        for (qsizetype i = s.size() - 120; i <= s.size(); ++i)
            cuts << i;
        for (const qsizetype cut : cuts) {
            Collected c;
            FrameDecoder d = decoderInto(&c);
            QVERIFY(d.feed(QByteArrayView(s).first(cut)));
            QVERIFY(d.feed(QByteArrayView(s).sliced(cut)));
            QVERIFY2(c.out == whole.out && c.err == whole.err && c.events == whole.events,
                     qPrintable(QString::number(cut)));
        }
        Collected bytewise;
        FrameDecoder d = decoderInto(&bytewise);
        for (qsizetype i = 0; i < s.size(); ++i)
            QVERIFY(d.feed(QByteArrayView(s).sliced(i, 1)));
        QCOMPARE(bytewise.out, whole.out);
        QCOMPARE(bytewise.events, whole.events);
        QVERIFY(d.atFrameBoundary());
    }

    void testPartialFrameIsNotABoundary() {
        const QByteArray s = sampleStream();
        Collected c;
        FrameDecoder d = decoderInto(&c);
        QVERIFY(d.feed(QByteArrayView(s).first(4)));
        QVERIFY(!d.atFrameBoundary()); // inside a header
        QVERIFY(d.feed(QByteArrayView(s).sliced(4, 6)));
        QVERIFY(!d.atFrameBoundary()); // inside a payload
        QCOMPARE(c.out, QByteArray("he"));
    }

    void testZeroLengthOutputFramesAreAccepted() {
        QByteArray s;
        appendHeader(&s, FrameType::Stdout, 0);
        appendOutput(&s, FrameType::Stderr, QByteArray("x"));
        appendHeader(&s, FrameType::Stderr, 0);
        Collected c;
        FrameDecoder d = decoderInto(&c);
        QVERIFY(d.feed(s));
        QVERIFY(d.atFrameBoundary());
        QCOMPARE(c.out, QByteArray());
        QCOMPARE(c.err, QByteArray("x"));
        QCOMPARE(c.pieces, 1);
    }

    void testHugeLengthsAreRefused() {
        // Positive control: the limits themselves are accepted (header only).
        for (const auto& [type, limit] : {std::pair{FrameType::Stdout, kMaxOutputPayload},
                                          std::pair{FrameType::Event, kMaxEventPayload}}) {
            QByteArray ok;
            appendHeader(&ok, type, limit);
            Collected c;
            QVERIFY(decoderInto(&c).feed(ok));
            QByteArray huge;
            appendHeader(&huge, type, limit + 1);
            FrameDecoder d = decoderInto(&c);
            QVERIFY(!d.feed(huge));
            QVERIFY(d.errorString().contains(QStringLiteral("limit")));
            QVERIFY(!d.feed(QByteArray("more"))); // stays refused
        }
        QByteArray max;
        appendHeader(&max, FrameType::Stderr, 0xffffffffu);
        Collected c;
        QVERIFY(!decoderInto(&c).feed(max));
    }

    void testMalformedHeadersAndEventsAreRefused() {
        const QList<QByteArray> bad{
            QByteArray("\x00\x00\x00\x00\x00\x00\x00\x01", 8),     // type 0 (Docker's stdin)
            QByteArray("\x04\x00\x00\x00\x00\x00\x00\x01", 8),     // unknown type
            QByteArray("\x01\x00\x01\x00\x00\x00\x00\x01", 8),     // padding not zero
            QByteArray("\x03\x00\x00\x00\x00\x00\x00\x03[1]", 11), // event not an object
            QByteArray("\x03\x00\x00\x00\x00\x00\x00\x00", 8),     // empty event
        };
        for (const QByteArray& b : bad) {
            Collected c;
            FrameDecoder d = decoderInto(&c);
            QVERIFY2(!d.feed(b), b.toHex().constData());
            QVERIFY(!d.errorString().isEmpty());
            QCOMPARE(c.pieces, 0);
        }
    }
};

QTEST_GUILESS_MAIN(TestLogFrames)
#include "test_log_frames.moc"
