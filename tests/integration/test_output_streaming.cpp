// The NDJSON output stream: bounded frames, no newline needed, bytes never lost or mangled,
// output limits that end the run quickly, and an agent whose memory stays flat.
#include "shared/RequestSigner.h"
#include "support/AgentProcess.h"
#include "support/RawHttp.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>
#include <QThread>

using namespace runbox;
using namespace runbox::testsupport;

namespace {
constexpr qsizetype kMaxFrameBytes = 64 * 1024;
constexpr qint64 kRssSlackKiB = 64 * 1024;
} // namespace

class TestOutputStreaming final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        // (AgentProcess shrinks ASan's quarantine, so memory checks hold in the ASan build too.)
        QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString()));
        m_ws = m_agent.createWorkspace();
        QVERIFY2(!m_ws.isEmpty(), qPrintable(m_agent.errorString()));
        // Warm up (first-use allocations) before any memory baseline is taken.
        QCOMPARE(
            m_agent.shell(m_ws, QStringLiteral("head -c 1000000 /dev/zero | tr '\\0' w")).status(),
            QStringLiteral("completed"));
    }
    void cleanupTestCase() { QVERIFY2(m_agent.stop(), qPrintable(m_agent.log())); }

    void testOutputLimitEndsRunAsOutputLimited() {
        const qint64 rssBefore = m_agent.rssKiB();
        QVERIFY(rssBefore > 0);
        QElapsedTimer clock;
        clock.start();
        const ExecOutcome r = m_agent.exec(m_ws,
                                           {{"argv", QJsonArray{"/usr/bin/yes"}},
                                            {"maxOutputBytes", 1 << 20},
                                            {"executionTimeoutMs", 60000}},
                                           60000);
        const qint64 elapsed = clock.elapsed();
        QVERIFY2(r.status() == QLatin1String("output_limited"), qPrintable(r.describe()));
        QVERIFY2(elapsed < 10000, qPrintable(QStringLiteral("took %1 ms").arg(elapsed)));
        QCOMPARE(r.stdoutBytes.size(), qsizetype(1 << 20)); // up to the limit, not a byte more
        QVERIFY(r.stdoutBytes.startsWith("y\ny\ny\n"));
        QCOMPARE(r.stdoutBytes.count("y\n"), qsizetype(1 << 19));
        const qint64 rssAfter = m_agent.rssKiB();
        QVERIFY2(rssAfter - rssBefore < kRssSlackKiB,
                 qPrintable(QStringLiteral("agent RSS %1 -> %2 KiB").arg(rssBefore).arg(rssAfter)));
    }

    void testOutputLimitCountsStdoutAndStderrTogether() {
        const ExecOutcome r =
            m_agent.shell(m_ws,
                          QStringLiteral("head -c 3000 /dev/zero | tr '\\0' o; "
                                         "head -c 3000 /dev/zero | tr '\\0' e >&2; sleep 30"),
                          {{"maxOutputBytes", 5000}, {"executionTimeoutMs", 60000}});
        QVERIFY2(r.status() == QLatin1String("output_limited"), qPrintable(r.describe()));
        QCOMPARE(r.stdoutBytes.size() + r.stderrBytes.size(), qsizetype(5000));
    }

    void testSlowClientKeepsAgentMemoryFlat() {
        // 100 MB of output to a client that does not read: the agent must stop reading the
        // sandbox's pipe (back-pressure) instead of buffering everything.
        constexpr qint64 total = 100'000'000;
        const qint64 rssBefore = m_agent.rssKiB();
        const QByteArray target = "/v1/workspaces/" + m_ws.toUtf8() + "/exec";
        const QByteArray body =
            QJsonDocument(
                QJsonObject{
                    {"kind", "shell"},
                    {"code", QStringLiteral("head -c %1 /dev/zero | tr '\\0' a").arg(total)}})
                .toJson(QJsonDocument::Compact);
        RawHttpConnection c;
        QVERIFY(c.connectTo(m_agent.port()));
        QVERIFY(c.send(buildRequest("POST", target,
                                    signedHeaders(m_agent.token(), "POST", target, body,
                                                  QDateTime::currentMSecsSinceEpoch()),
                                    body)));
        // Give the agent ample time to misbehave while we read nothing.
        qint64 rssPeak = rssBefore;
        for (int i = 0; i < 40; ++i) {
            QThread::msleep(100);
            rssPeak = std::max(rssPeak, m_agent.rssKiB());
        }
        qInfo("agent RSS %lld KiB before, %lld KiB at most while the client did not read",
              rssBefore, rssPeak);
        QVERIFY2(rssPeak - rssBefore < kRssSlackKiB,
                 qPrintable(QStringLiteral("agent RSS %1 -> %2 KiB").arg(rssBefore).arg(rssPeak)));
        // Then everything still arrives.
        const RawHttpResponse r = c.readResponse(120000);
        QCOMPARE(r.status, 200);
        QVERIFY(r.complete);
        qint64 received = 0;
        QJsonObject exit;
        for (const QByteArray& line : r.body.split('\n')) {
            const QJsonObject ev = QJsonDocument::fromJson(line).object();
            if (ev.value("type").toString() == QLatin1String("stdout"))
                received += ExecOutcome::eventBytes(ev).size();
            else if (ev.value("type").toString() == QLatin1String("exit"))
                exit = ev;
        }
        QCOMPARE(exit.value("status").toString(), QStringLiteral("completed"));
        QCOMPARE(received, total);
    }

    void testLongLineWithoutNewlineStreamsInBoundedFrames() {
        constexpr qint64 total = 50'000'000;
        ExecStream* stream = m_agent.execStreaming(
            m_ws, {{"kind", "shell"},
                   {"code", QStringLiteral("head -c %1 /dev/zero | tr '\\0' a").arg(total)}});
        stream->setKeepOutputEvents(false);
        qint64 frames = 0, expectedOffset = 0, largest = 0;
        bool contiguous = true, onlyA = true, exitSeen = false, outputAfterExit = false;
        connect(stream, &ExecStream::eventReceived, this, [&](const QJsonObject& ev) {
            const QString type = ev.value("type").toString();
            if (type == QLatin1String("exit")) {
                exitSeen = true;
                return;
            }
            if (type != QLatin1String("stdout"))
                return;
            outputAfterExit = outputAfterExit || exitSeen;
            const QByteArray bytes = ExecOutcome::eventBytes(ev);
            ++frames;
            largest = std::max<qint64>(largest, bytes.size());
            contiguous = contiguous && ev.value("offset").toInteger(-1) == expectedOffset;
            expectedOffset += bytes.size();
            onlyA = onlyA && bytes.count('a') == bytes.size();
        });
        QVERIFY(stream->waitForFinished(180000));
        const ExecOutcome& r = stream->outcome();
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        QCOMPARE(qint64(r.stdoutBytes.size()), total);
        QVERIFY2(largest <= kMaxFrameBytes, qPrintable(QString::number(largest)));
        QVERIFY(frames >= total / kMaxFrameBytes);
        QVERIFY(contiguous);
        QVERIFY(onlyA);
        QVERIFY(!outputAfterExit);
        QCOMPARE(r.exitEvent.value("stdoutBytes").toInteger(), total);
        delete stream;
    }

    void testInvalidAndSplitUtf8ArrivesByteExact() {
        const ExecOutcome r = m_agent.shell(
            m_ws, QStringLiteral("printf '\\377\\376\\200ok\\n'; printf '\\342\\202'; sleep 0.3; "
                                 "printf '\\254\\n'"));
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        QCOMPARE(r.stdoutBytes, QByteArray("\xff\xfe\x80ok\n\xe2\x82\xac\n"));
        bool euroWholeInText = false;
        for (const QJsonObject& ev : r.events) {
            if (ev.value("type").toString() != QLatin1String("stdout"))
                continue;
            QVERIFY(ev.contains("data") != ev.contains("dataBase64")); // exactly one encoding
            const QString text = ev.value("data").toString();
            QVERIFY2(!text.contains(QChar::ReplacementCharacter), qPrintable(text));
            euroWholeInText = euroWholeInText || text.contains(QChar(0x20AC));
        }
        QVERIFY2(euroWholeInText, "the euro sign split across two writes must arrive whole");
    }

    void testInvalidUtf8OnStderrIsKeptToo() {
        const ExecOutcome r = m_agent.shell(m_ws, QStringLiteral("printf 'a\\300\\257b' >&2"));
        QCOMPARE(r.stderrBytes, QByteArray("a\xc0\xaf"
                                           "b"));
    }

    void testOutputFlowsWithoutNewline() {
        // The sandbox waits for a file that the test creates only after it has seen "x": if
        // output waited for a newline or for the end, the run would hang until its timeout.
        const QString go = m_agent.workspaceDir(m_ws) + QStringLiteral("/go");
        QFile::remove(go);
        ExecStream* stream = m_agent.execStreaming(
            m_ws, {{"kind", "shell"},
                   {"code", QStringLiteral("printf x; while [ ! -e /workspace/go ]; do "
                                           "sleep 0.05; done; printf y")},
                   {"executionTimeoutMs", 30000}});
        const bool sawX = stream->waitForEvent(
            [](const QJsonObject& ev) {
                return ev.value("type").toString() == QLatin1String("stdout") &&
                       ev.value("data").toString() == QLatin1String("x");
            },
            20000);
        QVERIFY2(sawX, qPrintable(stream->outcome().describe()));
        QVERIFY(!stream->outcome().hasExit());
        QFile flag(go);
        QVERIFY(flag.open(QIODevice::WriteOnly));
        flag.close();
        QVERIFY(stream->waitForFinished(30000));
        QVERIFY2(stream->outcome().status() == QLatin1String("completed"),
                 qPrintable(stream->outcome().describe()));
        QCOMPARE(stream->outcome().stdoutBytes, QByteArray("xy"));
        delete stream;
    }

    void testSilentRunGetsKeepAlivePings() {
        // docs/contracts.md "Event stream": {"type":"ping"} after 15 s of silence, so proxies keep
        // the stream open.
        const ExecOutcome r =
            m_agent.shell(m_ws, QStringLiteral("echo begin; sleep 16.5; echo end"),
                          {{"executionTimeoutMs", 60000}}, 60000);
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        qsizetype pingAt = -1, endAt = -1;
        for (qsizetype i = 0; i < r.events.size(); ++i) {
            const QString type = r.events[i].value("type").toString();
            if (type == QLatin1String("ping") && pingAt < 0)
                pingAt = i;
            if (type == QLatin1String("stdout") && r.events[i].value("data").toString() == "end\n")
                endAt = i;
        }
        QVERIFY2(pingAt > 0, "no ping during 16.5 s of silence");
        QVERIFY(pingAt < endAt);
        QVERIFY2(r.arrivalMs[pingAt] >= 14000, qPrintable(QString::number(r.arrivalMs[pingAt])));
    }

private:
    AgentProcess m_agent;
    QString m_ws;
};

QTEST_GUILESS_MAIN(TestOutputStreaming)
#include "test_output_streaming.moc"
