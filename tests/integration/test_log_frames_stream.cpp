// The framed log stream (`format=frames`, docs/managed.md) against the NDJSON one, on the real
// agent: byte-exact output (non-UTF-8, NUL), resume from any offset, the retention gap marker,
// the exit event, format negotiation.
#include "support/AgentProcess.h"
#include "support/ManagedApi.h"

#include "cli/HttpStream.h"
#include "shared/ApiClient.h"
#include "shared/LogFrames.h"

#include <QJsonArray>
#include <QTest>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

/// What one framed stream delivered.
struct FramesCapture {
    int status = 0;
    QByteArray contentType;
    QByteArray bytes; ///< stdout and stderr in offset order
    QByteArray stdoutBytes, stderrBytes;
    QList<QJsonObject> events; ///< the event frames, in order
    QJsonObject exitEvent;
    bool complete = false;        ///< the HTTP body ended properly
    bool atFrameBoundary = false; ///< and not inside a frame
    QString error;
    /// The last event frame is `exit` and nothing follows it.
    bool endsWithExit() const {
        return !exitEvent.isEmpty() && events.last() == exitEvent && trailingOutput == 0;
    }
    qint64 trailingOutput = 0; ///< output bytes after the last event
};

FramesCapture readFrames(ApiClient& client, const QString& id, qint64 offset, bool follow,
                         const QByteArray& format = "format=frames",
                         const QList<QPair<QByteArray, QByteArray>>& headers = {}) {
    FramesCapture c;
    logframes::FrameDecoder decoder(
        [&c](logframes::FrameType type, QByteArrayView piece) {
            c.bytes += piece;
            (type == logframes::FrameType::Stdout ? c.stdoutBytes : c.stderrBytes) += piece;
            c.trailingOutput += piece.size();
        },
        [&c](const QJsonObject& ev) {
            c.events.append(ev);
            c.trailingOutput = 0;
            if (ev.value(QLatin1String("type")).toString() == QLatin1String("exit"))
                c.exitEvent = ev;
        });
    QByteArray path = "/v1/executions/" + id.toUtf8() +
                      "/log?offset=" + QByteArray::number(offset) + (follow ? "&follow=true" : "");
    if (!format.isEmpty())
        path += '&' + format;
    bool decodeOk = true;
    const cli::StreamResult r = cli::streamGet(
        client.baseUrl(), client.token(), client.pinnedSha256(), client.clockOffsetMs(), path,
        headers,
        [&](QByteArrayView body) {
            decodeOk = decoder.feed(body);
            return decodeOk;
        },
        60000);
    c.status = r.status;
    c.contentType = r.contentType;
    c.complete = r.complete;
    c.atFrameBoundary = decoder.atFrameBoundary();
    c.error = decodeOk ? r.transportError : decoder.errorString();
    return c;
}

/// A program whose output mixes streams, NUL and bytes that are not UTF-8, some of it late.
const char* kMixedOutput = "import os, sys, time\n"
                           "for i in range(400):\n"
                           "    os.write(1, b'line %d \\x00\\xff\\xfe h\\xc3\\xa9\\n' % i)\n"
                           "    if i % 7 == 0: os.write(2, bytes([0xc3, i % 256, 0]) + b'e\\n')\n"
                           "    if i % 100 == 0: time.sleep(0.05)\n"
                           "os.write(1, b'\\xe2\\x82'); time.sleep(0.05); os.write(1, b'\\xac')\n"
                           "sys.exit(4)\n";

void expectedMixed(QByteArray* out, QByteArray* err) {
    for (int i = 0; i < 400; ++i) {
        *out += "line " + QByteArray::number(i) + QByteArray(" \x00\xff\xfe h\xc3\xa9\n", 9);
        if (i % 7 == 0)
            *err += QByteArray("\xc3") + char(i % 256) + QByteArray("\0e\n", 3);
    }
    *out += "\xe2\x82\xac";
}

} // namespace

class TestLogFramesStream final : public QObject {
    Q_OBJECT

    AgentProcess m_agent;
    ApiClient& client() { return *m_agent.client(); }
    QString submitOk(const QString& ws, const QJsonObject& body) {
        const ApiResponse r = submitExecution(client(), ws, body);
        if (r.status != 202)
            qWarning("submit: %d %s", r.status, r.body.constData());
        return r.status == 202 ? r.json().value(QLatin1String("executionId")).toString()
                               : QString();
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString())); }

    void testFollowingInBothFormatsGivesTheSameBytesExactly() {
        const QString ws = m_agent.createWorkspace();
        const QString id =
            submitOk(ws, {{"argv", QJsonArray{"/usr/bin/python3", "-c", kMixedOutput}}});
        QVERIFY(!id.isEmpty());
        // Follow while it runs (it sleeps between bursts), in the framed format first.
        const FramesCapture frames = readFrames(client(), id, 0, true);
        QCOMPARE(frames.status, 200);
        QCOMPARE(frames.contentType, QByteArray(logframes::kMediaType));
        QVERIFY2(frames.complete && frames.atFrameBoundary, qPrintable(frames.error));
        const LogCapture ndjson = readLog(client(), id, 0, true);
        QCOMPARE(ndjson.status, 200);

        QByteArray out, err;
        expectedMixed(&out, &err);
        QCOMPARE(frames.stdoutBytes, out);
        QCOMPARE(frames.stderrBytes, err);
        QCOMPARE(ndjson.stdoutBytes, out);
        QCOMPARE(ndjson.stderrBytes, err);
        QCOMPARE(frames.bytes, ndjson.bytes); // the same interleaving
        QVERIFY(frames.endsWithExit());
        QVERIFY(ndjson.endsWithExit());
        QCOMPARE(frames.exitEvent, ndjson.exitEvent);
        QCOMPARE(frames.exitEvent.value("exitCode").toInt(), 4);
    }

    void testResumeFromAnyOffsetReturnsExactlyTheRest() {
        const QString ws = m_agent.createWorkspace();
        const QString id =
            submitOk(ws, {{"argv", QJsonArray{"/usr/bin/python3", "-c", kMixedOutput}}});
        QVERIFY(!id.isEmpty());
        QVERIFY(isFinalState(waitUntilFinal(client(), id).value("state").toString()));
        const FramesCapture full = readFrames(client(), id, 0, false);
        QCOMPARE(full.status, 200);
        const qint64 size = full.bytes.size();
        QVERIFY(size > 1000);
        for (const qint64 n :
             {qint64(1), qint64(7), qint64(8), qint64(9), size / 3, size / 2 + 1, size - 1, size}) {
            const FramesCapture part = readFrames(client(), id, n, n % 2 == 0);
            QCOMPARE(part.status, 200);
            QVERIFY2(part.bytes == full.bytes.mid(n), qPrintable(QString::number(n)));
            QVERIFY(part.endsWithExit());
            // The NDJSON stream from the same offset agrees.
            QCOMPARE(readLog(client(), id, n, false).bytes, part.bytes);
        }
        QCOMPARE(readFrames(client(), id, size + 1, false).status, 400);
    }

    void testRetentionGapIsAnEventFrameWithItsOffsets() {
        const QString ws = m_agent.createWorkspace();
        // 2 MiB of output under maxOutputBytes 256 KiB: head and tail kept, a gap between.
        const QString id = submitOk(
            ws,
            {{"argv", QJsonArray{"/usr/bin/python3", "-c",
                                 "import os\n"
                                 "for i in range(2048): os.write(1, bytes([i % 251]) * 1024)\n"}},
             {"maxOutputBytes", 256 * 1024}});
        QVERIFY(!id.isEmpty());
        // Read once it is final: a live follower may see tail bytes before retention drops them.
        QVERIFY(isFinalState(waitUntilFinal(client(), id).value("state").toString()));
        const FramesCapture frames = readFrames(client(), id, 0, true);
        QCOMPARE(frames.status, 200);
        const LogCapture ndjson = readLog(client(), id, 0, false);
        QList<QJsonObject> frameGaps, ndjsonGaps;
        for (const QJsonObject& ev : frames.events)
            if (ev.value("type").toString() == QLatin1String("gap"))
                frameGaps.append(ev);
        for (const QJsonObject& ev : ndjson.events)
            if (ev.value("type").toString() == QLatin1String("gap"))
                ndjsonGaps.append(ev);
        QCOMPARE(frameGaps.size(), 1);
        QCOMPARE(frameGaps, ndjsonGaps);
        const qint64 gapAt = frameGaps[0].value("offset").toInteger();
        const qint64 gapBytes = frameGaps[0].value("bytes").toInteger();
        QCOMPARE(gapAt, qint64(128 * 1024)); // the head is maxOutputBytes / 2
        QVERIFY(gapBytes > 0);
        QCOMPARE(frames.bytes, ndjson.bytes);
        QCOMPARE(qint64(frames.bytes.size()) + gapBytes, qint64(2048 * 1024));
        // The retained tail keeps its offsets: its bytes are exactly the end of the output.
        QByteArray all;
        for (int i = 0; i < 2048; ++i)
            all += QByteArray(1024, char(i % 251));
        QCOMPARE(frames.bytes.left(gapAt), all.left(gapAt));
        QCOMPARE(frames.bytes.mid(gapAt), all.mid(gapAt + gapBytes));
        QVERIFY(frames.endsWithExit());
    }

    void testFormatIsChosenByQueryOrAccept() {
        const QString ws = m_agent.createWorkspace();
        const QString id = submitOk(
            ws,
            {{"argv", QJsonArray{"/usr/bin/python3", "-c", "import os; os.write(1, b'a\\x00b')"}}});
        QVERIFY(!id.isEmpty());
        QVERIFY(isFinalState(waitUntilFinal(client(), id).value("state").toString()));
        const FramesCapture byAccept =
            readFrames(client(), id, 0, false, {}, {{"Accept", logframes::kMediaType}});
        QCOMPARE(byAccept.status, 200);
        QCOMPARE(byAccept.contentType, QByteArray(logframes::kMediaType));
        QCOMPARE(byAccept.bytes, QByteArray("a\0b", 3));
        // Default and explicit NDJSON: lines of JSON.
        const ApiResponse plain =
            client().call("GET", "/v1/executions/" + id.toUtf8() + "/log?format=ndjson");
        QCOMPARE(plain.status, 200);
        QVERIFY(plain.body.startsWith("{"));
        QVERIFY(readLog(client(), id, 0, false).bytes == QByteArray("a\0b", 3));
        const ApiResponse bogus =
            client().call("GET", "/v1/executions/" + id.toUtf8() + "/log?format=xml");
        QCOMPARE(bogus.status, 400);
        QCOMPARE(bogus.errorCode(), QStringLiteral("invalid_format"));
    }
};

QTEST_GUILESS_MAIN(TestLogFramesStream)
#include "test_log_frames_stream.moc"
