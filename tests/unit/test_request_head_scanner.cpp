// RequestHeadScanner: the strict RFC 9112 head rules http-parser 2.9 does not enforce (CRLF
// only, no obs-fold, request line with HTTP/1.0 or HTTP/1.1), fed whole and byte by byte.
#include "agent/http/RequestHeadScanner.h"

#include <QTest>

using runbox::http::RequestHeadScanner;
using Verdict = RequestHeadScanner::Verdict;

class TestRequestHeadScanner final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testHeads_data() {
        QTest::addColumn<QByteArray>("head");
        QTest::addColumn<int>("status"); // 0: accepted
        QTest::newRow("HTTP/1.1") << QByteArray("GET / HTTP/1.1\r\nHost: x\r\n\r\n") << 0;
        QTest::newRow("HTTP/1.0, no header") << QByteArray("GET / HTTP/1.0\r\n\r\n") << 0;
        QTest::newRow("leading CRLF") << QByteArray("\r\nGET / HTTP/1.1\r\n\r\n") << 0;
        QTest::newRow("no version") << QByteArray("GET /\r\n\r\n") << 400;
        QTest::newRow("HTTP/0.9") << QByteArray("GET / HTTP/0.9\r\n\r\n") << 505;
        QTest::newRow("HTTP/2.0") << QByteArray("GET / HTTP/2.0\r\n\r\n") << 505;
        QTest::newRow("HTTP/1.10") << QByteArray("GET / HTTP/1.10\r\n\r\n") << 400;
        QTest::newRow("four words") << QByteArray("GET / x HTTP/1.1\r\n\r\n") << 400;
        QTest::newRow("bare LF") << QByteArray("GET / HTTP/1.1\nHost: x\r\n\r\n") << 400;
        QTest::newRow("bare LF end") << QByteArray("GET / HTTP/1.1\r\nHost: x\r\n\n") << 400;
        QTest::newRow("bare CR") << QByteArray("GET / HTTP/1.1\r\nA: b\rc\r\n\r\n") << 400;
        QTest::newRow("obs-fold") << QByteArray("GET / HTTP/1.1\r\nA: b\r\n\tc\r\n\r\n") << 400;
        QTest::newRow("many empty lines")
            << QByteArray("\r\n\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\n\r\n") << 400;
        QTest::newRow("long request line")
            << QByteArray("GET /" + QByteArray(200, 'a') + " HTTP/1.1\r\n\r\n") << 431;
    }
    void testHeads() {
        QFETCH(QByteArray, head);
        QFETCH(int, status);
        for (const bool byteByByte : {false, true}) {
            RequestHeadScanner scanner(128);
            Verdict v = Verdict::NeedMore;
            qsizetype consumed = -1, offset = 0;
            const qsizetype step = byteByByte ? 1 : head.size();
            while (v == Verdict::NeedMore && offset < head.size()) {
                v = scanner.scan(head.constData() + offset, qMin(step, head.size() - offset),
                                 &consumed);
                if (v == Verdict::HeadEnd)
                    consumed += offset;
                offset += step;
            }
            if (status == 0) {
                QCOMPARE(v, Verdict::HeadEnd);
                QCOMPARE(consumed, head.size());
                QVERIFY(scanner.isDone());
            } else {
                QCOMPARE(v, Verdict::Invalid);
                QCOMPARE(scanner.error().httpStatus, status);
                QVERIFY(!scanner.error().code.isEmpty());
            }
        }
    }

    void testStopsAtTheEndOfTheHead() {
        // The body (and a pipelined request) are not the scanner's business.
        RequestHeadScanner scanner(1024);
        const QByteArray head = "POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\n";
        const QByteArray bytes = head + "a\nb" + "GET /\n\n";
        qsizetype consumed = 0;
        QCOMPARE(scanner.scan(bytes.constData(), bytes.size(), &consumed), Verdict::HeadEnd);
        QCOMPARE(consumed, head.size());
        scanner.reset();
        QVERIFY(!scanner.isDone());
        const QByteArray next = "GET / HTTP/1.1\r\n\r\n";
        QCOMPARE(scanner.scan(next.constData(), next.size(), &consumed), Verdict::HeadEnd);
    }
};

QTEST_GUILESS_MAIN(TestRequestHeadScanner)
#include "test_request_head_scanner.moc"
