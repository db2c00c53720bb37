// Sync execs in light workspaces through the real agent, run as root (docs/light-workspaces.md):
// the stream's limits. Past maxOutputBytes the command is stopped as output_limited with exactly
// the limit delivered; a client that stops reading pauses the command's output (the agent's memory
// stays flat) and still gets every byte, in order, once it reads again. Each check starts with a
// positive control.
#include "LightAgentFixture.h"
#include "LightTestSupport.h"

#include "support/RawHttp.h"

#include <QDateTime>
#include <QFile>
#include <QtTest>

using namespace lightagent;
namespace ts = runbox::testsupport;

namespace {

/// VmRSS of @p pid in KiB (-1 when unreadable).
qint64 rssKiB(qint64 pid) {
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : status.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').first().toLongLong();
    }
    return -1;
}

QByteArray seqBytes(int n) {
    QByteArray out;
    for (int i = 1; i <= n; ++i)
        out += QByteArray::number(i) + '\n';
    return out;
}

} // namespace

class TestLightExecStream final : public QObject {
    Q_OBJECT

private:
    Agent m_agent;
    Workspace m_a, m_b;

private Q_SLOTS:
    void initTestCase() {
        QString error;
        const QString skip = m_agent.startWithTwoWorkspaces(44400, 200, &m_a, &m_b, &error);
        if (!skip.isEmpty())
            QSKIP(qPrintable(skip));
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void testOutputPastTheLimitEndsAsOutputLimited() {
        ApiClient a(m_agent.url(), m_a.token);
        // Control: output under the limit completes, byte-exact.
        const Outcome under =
            sh(a, m_a.id, QStringLiteral("seq 1 1000"), {{"maxOutputBytes", 65536}});
        QVERIFY2(under.status() == QLatin1String("completed"), qPrintable(under.describe()));
        QCOMPARE(under.out, seqBytes(1000));
        // Endless output: stopped at the limit, exactly the limit delivered.
        const Outcome over = sh(a, m_a.id, QStringLiteral("yes 0123456789"),
                                {{"maxOutputBytes", 65536}, {"executionTimeoutMs", 60000}});
        QVERIFY2(over.status() == QLatin1String("output_limited"), qPrintable(over.describe()));
        QCOMPARE(over.out.size(), 65536);
        QVERIFY(over.out.startsWith("0123456789\n0123456789\n"));
        QCOMPARE(over.exit.value("stdoutBytes").toInteger(), 65536);
        QVERIFY(over.events.last().value("type").toString() == QLatin1String("exit"));
    }

    void testStalledClientPausesOutputAndLosesNothing() {
        // 60 MB of output, far more than the agent may buffer for one client.
        const int count = 7'000'000;
        const QByteArray target = "/v1/workspaces/" + m_a.id.toUtf8() + "/exec";
        const QByteArray body =
            QJsonDocument(QJsonObject{{"argv", QJsonArray{"seq", "1", QString::number(count)}}})
                .toJson(QJsonDocument::Compact);
        ts::RawHttpConnection connection;
        QVERIFY(connection.connectTo(quint16(m_agent.url().port())));
        connection.socket().setReadBufferSize(64 * 1024); // the kernel's buffers fill, then ours
        const qint64 rssBefore = rssKiB(m_agent.pid());
        QVERIFY(rssBefore > 0); // control: the agent's memory is readable
        QVERIFY(connection.send(
            ts::buildRequest("POST", target,
                             ts::signedHeaders(m_a.token, "POST", target, body,
                                               QDateTime::currentMSecsSinceEpoch()) +
                                 ts::HeaderList{{"Content-Type", "application/json"}},
                             body)));
        // The client reads nothing for 3 s: the command must be held back, not buffered.
        QThread::msleep(3000);
        const qint64 rssStalled = rssKiB(m_agent.pid());
        QVERIFY2(rssStalled - rssBefore < 16 * 1024,
                 qPrintable(QStringLiteral("agent RSS grew by %1 KiB while the client stalled")
                                .arg(rssStalled - rssBefore)));
        connection.socket().setReadBufferSize(0);
        const ts::RawHttpResponse response = connection.readResponse(120000);
        QCOMPARE(response.status, 200);
        QVERIFY(response.complete);
        const Outcome outcome = parseOutcome(ApiResponse{response.status, response.body, {}});
        QVERIFY2(outcome.status() == QLatin1String("completed"), qPrintable(outcome.describe()));
        const QByteArray expected = seqBytes(count);
        QCOMPARE(outcome.out.size(), expected.size());
        QVERIFY(outcome.out == expected);
    }
};

QTEST_GUILESS_MAIN(TestLightExecStream)
#include "test_light_exec_stream.moc"
