// A fork bomb is contained: it ends at its timeout, the agent keeps answering meanwhile, and
// nothing of it is left on the host afterwards.
#include "shared/ApiClient.h"
#include "shared/RequestSigner.h"
#include "support/AgentProcess.h"
#include "support/HostProcesses.h"
#include "support/RawHttp.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTest>
#include <QThread>
#include <QTimer>

using namespace runbox;
using namespace runbox::testsupport;

namespace {
/// The bomb's processes share RLIMIT_NPROC with every process of their uid on the host: give
/// this agent a uid of its own (no passwd entry needed) so that other agents running as
/// `nobody` at the same time are not starved.
constexpr uid_t kForkBombUid = 64611;
/// How long /health may take while the bomb saturates both cores. A sanitized agent does the
/// same work 2-3x slower (one probe took 1174 ms in the clean clone's ASan stage).
/// Probes the prober must have sent during the bomb (every 200 ms, fewer when they are slow).
#if defined(__SANITIZE_ADDRESS__)
constexpr int kHealthBudgetMs = 3000;
constexpr int kMinProbes = 5;
#else
constexpr int kHealthBudgetMs = 1000;
constexpr int kMinProbes = 15;
#endif

/// GET /health every 200 ms on fresh connections, timed, until interrupted.
class HealthProber final : public QThread {
public:
    explicit HealthProber(quint16 port) : m_port(port) {}
    int sent = 0, answered = 0, late = 0;
    qint64 slowestMs = 0, slowestAtMs = 0;

protected:
    void run() override {
        QElapsedTimer since;
        since.start();
        while (!isInterruptionRequested()) {
            QElapsedTimer clock;
            clock.start();
            ++sent;
            const RawHttpResponse r =
                rawRoundTrip(m_port, buildRequest("GET", "/health", {}), 10000);
            const qint64 ms = clock.elapsed();
            if (ms > slowestMs) {
                slowestMs = ms;
                slowestAtMs = since.elapsed();
            }
            answered += r.status == 200 ? 1 : 0;
            late += ms >= kHealthBudgetMs ? 1 : 0;
            QThread::msleep(200);
        }
    }

private:
    quint16 m_port;
};
} // namespace

class TestForkBombIsContained final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        AgentOptions options;
        options.unprivilegedUid = kForkBombUid;
        QVERIFY2(m_agent.start(options), qPrintable(m_agent.errorString()));
        m_ws = m_agent.createWorkspace();
        QVERIFY2(!m_ws.isEmpty(), qPrintable(m_agent.errorString()));
    }
    void cleanupTestCase() { QVERIFY2(m_agent.stop(), qPrintable(m_agent.log())); }

    void testPositiveControlHealthAnswersAndForksWork() {
        for (int i = 0; i < 3; ++i) {
            QElapsedTimer clock;
            clock.start();
            const ApiResponse r = m_agent.client()->call("GET", "/health", {}, 10000);
            QCOMPARE(r.status, 200);
            QVERIFY(clock.elapsed() < kHealthBudgetMs);
        }
        // A few hundred processes are fine: the bound is not set absurdly low.
        const ExecOutcome r = m_agent.shell(
            m_ws, QStringLiteral("for i in $(seq 200); do sleep 2 & done; wait; echo forked"));
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        QCOMPARE(r.stdoutBytes, QByteArray("forked\n"));
    }

    void testForkBombEndsAtTimeoutWhileHealthAnswers() {
        const QByteArray marker = "runbox-forkbomb-" + RequestSigner::newNonce().left(12);
        // The classic bash bomb, started by a parent that stays (bash's own top level returns at
        // once). argv[0] names every bash of the bomb: forked copies keep that command line.
        const QString code =
            QStringLiteral("import os, time\n"
                           "if os.fork() == 0:\n"
                           "    os.execv('/usr/bin/bash', ['%1', '-c', ':(){ :|:& };:'])\n"
                           "time.sleep(600)\n")
                .arg(QString::fromLatin1(marker));
        ExecStream* bomb = m_agent.execStreaming(
            m_ws, {{"kind", "python"}, {"code", code}, {"executionTimeoutMs", 5000}});
        bomb->setKeepOutputEvents(false);

        // Probe GET /health every 200 ms from another thread (so that this thread's handling of
        // the bomb's stream does not count); each probe must be answered within the budget.
        HealthProber prober(m_agent.port());
        prober.start();
        qsizetype bombPeak = 0; // positive control: the bomb really multiplied
        QTimer scan;
        connect(&scan, &QTimer::timeout, this, [&] {
            bombPeak = std::max(bombPeak, HostProcesses::withCmdlineContaining(marker).size());
        });
        scan.start(1000);
        QVERIFY(bomb->waitForFinished(60000));
        scan.stop();
        prober.requestInterruption();
        QVERIFY(prober.wait(10000));

        const ExecOutcome& r = bomb->outcome();
        qInfo("%d health probes during the bomb, slowest %lld ms at %lld ms; up to %lld bomb "
              "processes seen",
              prober.sent, prober.slowestMs, prober.slowestAtMs, qint64(bombPeak));
        QVERIFY2(bombPeak >= 100, qPrintable(QString::number(bombPeak)));
        QVERIFY2(r.status() == QLatin1String("timed_out"), qPrintable(r.describe()));
        const double durationMs = r.exitEvent.value("durationMs").toDouble();
        QVERIFY2(durationMs >= 5000 && durationMs < 20000, qPrintable(QString::number(durationMs)));
        QVERIFY2(prober.sent >= kMinProbes, qPrintable(QString::number(prober.sent)));
        QCOMPARE(prober.answered, prober.sent);
        QVERIFY2(prober.late == 0,
                 qPrintable(QStringLiteral("%1 of %2 health probes took >= %3 ms (slowest %4 ms)")
                                .arg(prober.late)
                                .arg(prober.sent)
                                .arg(kHealthBudgetMs)
                                .arg(prober.slowestMs)));
        // Nothing of the bomb is left, at once.
        const QList<HostProcess> left = HostProcesses::withCmdlineContaining(marker);
        QVERIFY2(left.isEmpty(),
                 qPrintable(QStringLiteral("%1 processes left, e.g.\n%2")
                                .arg(left.size())
                                .arg(QString::fromUtf8(HostProcesses::describe(left.mid(0, 5))))));
        delete bomb;
    }

    void testHostIsFineAfterwards() {
        // The agent has no child left and nothing else runs under its uid (a zombie waiting for
        // the host's init to reap it is no longer running).
        QFile children(QStringLiteral("/proc/%1/task/%1/children").arg(m_agent.pid()));
        QVERIFY(children.open(QIODevice::ReadOnly));
        QCOMPARE(children.readAll().trimmed(), QByteArray());
        QList<HostProcess> others;
        for (const HostProcess& p : HostProcesses::ofUid(m_agent.agentUid()))
            if (p.pid != m_agent.pid() && p.state != 'Z')
                others.append(p);
        QVERIFY2(others.isEmpty(), HostProcesses::describe(others.mid(0, 5)).constData());
        // And it still runs code.
        const ExecOutcome r = m_agent.shell(m_ws, QStringLiteral("echo still fine"));
        QCOMPARE(r.stdoutBytes, QByteArray("still fine\n"));
    }

private:
    AgentProcess m_agent;
    QString m_ws;
};

QTEST_GUILESS_MAIN(TestForkBombIsContained)
#include "test_sandbox_fork_bomb.moc"
