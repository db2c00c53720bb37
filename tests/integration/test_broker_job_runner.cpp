// BrokerJobRunner: allow-listed host workloads, no shell, scrubbed env, per-chip-set queues,
// and cancellation that ends the job's whole process group.
#include "agent/http/ErrorStatus.h"
#include "agent/npu/BrokerJobRunner.h"
#include "support/BrokerStoreFixture.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

#include <csignal>

using namespace runbox::npu;
using runbox::Error;
using runbox::testsupport::BrokerStoreFixture;

namespace {

/// JSON with single quotes (moc mis-parses raw string literals).
QByteArray j(const char* text) {
    return QByteArray(text).replace('\'', '"');
}

/// True when @p pid no longer runs (absent, or a zombie waiting for its reaper).
bool gone(qint64 pid) {
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return true;
    const QByteArray text = stat.readAll();
    const int paren = text.lastIndexOf(')');
    return paren < 0 || text.mid(paren + 2, 1) == "Z";
}

qint64 readPid(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    return file.readAll().trimmed().toLongLong();
}

bool waitFinished(BrokerJob* job, int timeoutMs = 20000) {
    if (job->isFinal())
        return true;
    QSignalSpy spy(job, &BrokerJob::finished);
    return spy.wait(timeoutMs) || job->isFinal();
}

} // namespace

class TestBrokerJobRunner final : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_ws;
    WorkloadCatalog m_catalog;
    BrokerStoreFixture m_store; ///< where the jobs are recorded (executions of kind broker)

    QByteArray out(const BrokerJob* job, qint64 from = 0) const {
        return m_store.stream(job->id(), BrokerJob::Stream::Stdout, from);
    }

    BrokerOptions options() const {
        BrokerOptions o;
        o.killGraceMs = 300;
        QProcessEnvironment env;
        env.insert("PATH", "/usr/bin:/bin");
        env.insert("ASCEND_HOME_PATH", "/usr/local/Ascend/ascend-toolkit/latest");
        env.insert("HCCL_CONNECT_TIMEOUT", "120");
        env.insert("MS_COMPILER_CACHE_PATH", "/cache");
        env.insert("ASCEND_API_KEY", "leak-1");
        env.insert("RUNBOX_AGENT_TOKEN", "leak-2");
        env.insert("DB_PASSWORD", "leak-3");
        env.insert("UNRELATED", "leak-4");
        o.baseEnvironment = env;
        o.store = m_store.jobs();
        return o;
    }

    BrokerJobRequest request(const QString& workload, QJsonObject inputs = {}) const {
        BrokerJobRequest r;
        r.workloadId = workload;
        r.workspaceId = BrokerStoreFixture::workspaceId;
        r.workspaceDir = m_ws;
        r.inputs = inputs;
        // As root this test is a privileged agent: its jobs run as an unprivileged uid, which
        // owns the workspace (initTestCase).
        r.workspaceUid = ::geteuid() == 0 ? kJobUid : 0;
        return r;
    }
    static constexpr uid_t kJobUid = 65534;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QVERIFY(QDir(m_dir.path()).mkpath("ws/dir"));
        QVERIFY(QDir(m_dir.path()).mkpath("outside"));
        m_ws = QDir(m_dir.path() + "/ws").canonicalPath();
        QFile(m_ws + "/dir/a b;$(touch pwned).json").open(QIODevice::WriteOnly);
        QVERIFY(QFile::link(m_dir.path() + "/outside", m_ws + "/out"));
        QFile tree(m_ws + "/tree.sh");
        QVERIFY(tree.open(QIODevice::WriteOnly));
        // The leader starts a child that ignores SIGTERM, which starts a grandchild (that
        // inherits the ignored SIGTERM); all three stay in the job's process group.
        tree.write(
            "sh -c 'trap \"\" TERM; sleep 1000 & echo $! > grandchild.pid; echo $$ > child.pid;"
            " wait' &\necho $$ > leader.pid\necho ready\nwait\n");
        tree.close();
        QFile leftover(m_ws + "/leftover.sh");
        QVERIFY(leftover.open(QIODevice::WriteOnly));
        leftover.write("sleep 1000 &\necho $! > leftover.pid\necho done\n");
        leftover.close();
        if (::geteuid() == 0) { // the jobs' uid owns the workspace, as a root agent arranges
            QVERIFY(::chmod(QFile::encodeName(m_dir.path()).constData(), 0711) == 0);
            QDirIterator it(m_ws, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::System,
                            QDirIterator::Subdirectories);
            QVERIFY(::lchown(QFile::encodeName(m_ws).constData(), kJobUid, kJobUid) == 0);
            while (it.hasNext())
                QVERIFY(::lchown(QFile::encodeName(it.next()).constData(), kJobUid, kJobUid) == 0);
        }
        QString error;
        QVERIFY2(
            m_catalog.parse(
                j("{'workloads': [ "
                  "{'id': 'print', 'label': 'Print', 'program': '/usr/bin/printf', "
                  "'args': ['%s|%s|%s|%s', '${input:cfg}', '${env:RUNBOX_TEST_LEVEL:-7}', "
                  "'${workspace}', '$(touch pwned)']}, "
                  "{'id': 'env', 'label': 'Env', 'program': '/usr/bin/env'}, "
                  "{'id': 'streams', 'label': 'Streams', 'program': '/bin/sh', "
                  "'args': ['-c', 'printf out; printf err >&2; printf more']}, "
                  "{'id': 'tree', 'label': 'Tree', 'program': '/bin/sh', 'args': "
                  "['${workspace}/tree.sh']}, "
                  "{'id': 'leftover', 'label': 'Leftover', 'program': '/bin/sh', 'args': "
                  "['${workspace}/leftover.sh']}, "
                  "{'id': 'slow', 'label': 'Slow', 'program': '/bin/sleep', 'args': ['30'], "
                  "'timeoutMs': 200}, "
                  "{'id': 'wait', 'label': 'Wait', 'program': '/bin/sleep', 'args': ['1000']}, "
                  "{'id': 'broken', 'label': 'Broken', 'program': '/nonexistent/bin/tool'}]} "),
                &error),
            qPrintable(error));
        QVERIFY2(m_store.open(m_ws, &error), qPrintable(error));
    }

    void testWhitelistedWorkloadRunsWithArgumentsVerbatimAndNoShell() {
        BrokerJobRunner runner(m_catalog, nullptr, options());
        Error error;
        BrokerJob* job =
            runner.submit(request("print", {{"cfg", "dir/a b;$(touch pwned).json"}}), &error);
        QVERIFY2(job, qPrintable(error.message));
        QVERIFY(waitFinished(job));
        QCOMPARE(BrokerJob::stateName(job->state()), QStringLiteral("completed"));
        QCOMPARE(job->exitCode().value_or(-1), 0);
        // The input arrives as the pinned descriptor's /proc path, never as a path string.
        const QString printed = QString::fromUtf8(out(job));
        QVERIFY2(QRegularExpression("^/proc/self/fd/[0-9]+\\|7\\|" +
                                    QRegularExpression::escape(m_ws) + "\\|\\$\\(touch pwned\\)$")
                     .match(printed)
                     .hasMatch(),
                 qPrintable(printed));
        QVERIFY(!QFile::exists(m_ws + "/pwned"));
        QVERIFY(!QFile::exists("pwned"));
        QVERIFY(runbox::testsupport::waitRecorded(&runner, m_store.jobs(), job->id()));
        QCOMPARE(BrokerJobStore::jobJson(m_store.record(job->id())).value("state").toString(),
                 QStringLiteral("completed"));
    }

    void testJobIsRecordedAsABrokerExecution() {
        BrokerJobRunner runner(m_catalog, nullptr, options());
        Error error;
        BrokerJob* job = runner.submit(request("streams"), &error);
        QVERIFY2(job, qPrintable(error.message));
        const runbox::store::ExecutionRecord queued = m_store.record(job->id());
        QCOMPARE(runbox::store::toString(queued.kind), QStringLiteral("broker"));
        QCOMPARE(queued.workspaceId, BrokerStoreFixture::workspaceId);
        QVERIFY(runbox::testsupport::waitRecorded(&runner, m_store.jobs(), job->id()));
        const runbox::store::ExecutionRecord r = m_store.record(job->id());
        QCOMPARE(runbox::store::toString(r.state), QStringLiteral("completed"));
        QCOMPARE(r.exitCode.value_or(-1), 0);
        QVERIFY(r.startedMs && r.finishedMs);
        QCOMPARE(r.logBytes.stdoutBytes, 7);
        QCOMPARE(r.logBytes.stderrBytes, 3);
        QCOMPARE(r.provenance.value("workloadId").toString(), QStringLiteral("streams"));
        // The operator's argv stays private (GET /v1/npu/workloads never shows it either).
        QVERIFY(!r.provenance.contains("argv") && !r.provenance.contains("env"));
        runbox::store::LogInfo info;
        QVERIFY(!m_store.logs()->info(job->id(), &info));
        QVERIFY(info.finished && !info.lost);
        QCOMPARE(info.endOffset, 10);
    }

    void testJobEnvironmentIsScrubbed() {
        BrokerJobRunner runner(m_catalog, nullptr, options());
        Error error;
        BrokerJob* job = runner.submit(request("env"), &error);
        QVERIFY(job && waitFinished(job));
        const QString env = QString::fromUtf8(out(job));
        QVERIFY(env.contains("ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/latest"));
        QVERIFY(env.contains("HCCL_CONNECT_TIMEOUT=120"));
        QVERIFY(env.contains("MS_COMPILER_CACHE_PATH=/cache"));
        QVERIFY(env.contains("RUNBOX_NPU_WORKSPACE=" + m_ws));
        QVERIFY2(!env.contains("leak-"), qPrintable(env));
    }

    void testStdoutAndStderrKeepTheirOwnOffsets() {
        BrokerJobRunner runner(m_catalog, nullptr, options());
        Error error;
        BrokerJob* job = runner.submit(request("streams"), &error);
        QVERIFY(job && waitFinished(job));
        QCOMPARE(out(job), QByteArray("outmore"));
        QCOMPARE(m_store.stream(job->id(), BrokerJob::Stream::Stderr), QByteArray("err"));
        QCOMPARE(out(job, 3), QByteArray("more"));
        // The log numbers both streams together, in arrival order, contiguously; each stream's
        // own bytes add up to its own size.
        qint64 stdoutSeen = 0;
        qint64 logical = 0;
        for (const runbox::store::LogChunk& chunk : m_store.chunks(job->id())) {
            QCOMPARE(chunk.offset, logical);
            logical = chunk.endOffset();
            if (chunk.kind == runbox::store::LogChunk::Kind::Stdout)
                stdoutSeen += chunk.data.size();
        }
        QCOMPARE(stdoutSeen, 7);
        QCOMPARE(logical, 10);
        QCOMPARE(job->streamSize(BrokerJob::Stream::Stdout), 7);
        QCOMPARE(job->streamSize(BrokerJob::Stream::Stderr), 3);
    }

    void testOutputBeyondTheLimitIsDroppedAndFlagged() {
        BrokerOptions o = options();
        o.maxOutputBytes = 4;
        BrokerJobRunner runner(m_catalog, nullptr, o);
        Error error;
        BrokerJob* job = runner.submit(request("streams"), &error);
        QVERIFY(job && waitFinished(job));
        QCOMPARE(job->streamSize(BrokerJob::Stream::Stdout) +
                     job->streamSize(BrokerJob::Stream::Stderr),
                 4);
        QVERIFY(job->truncated());
        QCOMPARE(qint64(m_store.chunks(job->id()).isEmpty()
                            ? 0
                            : m_store.chunks(job->id()).last().endOffset()),
                 4);
        QVERIFY(runbox::testsupport::waitRecorded(&runner, m_store.jobs(), job->id()));
        QCOMPARE(m_store.record(job->id()).logBytes.droppedBytes, 6);
        QVERIFY(BrokerJobStore::jobJson(m_store.record(job->id())).value("truncated").toBool());
    }

    void testUnknownWorkloadIsRefused() {
        BrokerJobRunner runner(m_catalog, nullptr, options());
        Error error;
        QVERIFY(!runner.submit(request("rm-rf"), &error));
        QCOMPARE(runbox::http::httpStatus(error.kind), 400);
        QCOMPARE(error.code, QStringLiteral("unknown_workload"));
        QVERIFY(runner.jobs().isEmpty());
    }

    void testInputsMustStayInsideTheWorkspace_data() {
        QTest::addColumn<QJsonObject>("inputs");
        QTest::newRow("dotdot") << QJsonObject{{"cfg", "../outside/x"}};
        QTest::newRow("absolute") << QJsonObject{{"cfg", "/etc/passwd"}};
        QTest::newRow("symlink-escape") << QJsonObject{{"cfg", "out/x.json"}};
        QTest::newRow("not-there") << QJsonObject{{"cfg", "dir/new.json"}};
        QTest::newRow("missing") << QJsonObject{};
        QTest::newRow("unexpected") << QJsonObject{{"cfg", "dir"}, {"other", "x"}};
        QTest::newRow("not-string") << QJsonObject{{"cfg", 3}};
    }
    void testInputsMustStayInsideTheWorkspace() {
        QFETCH(QJsonObject, inputs);
        BrokerJobRunner runner(m_catalog, nullptr, options());
        Error error;
        // Positive control: a path inside is accepted.
        BrokerJob* good = runner.submit(request("print", {{"cfg", "dir"}}), &error);
        QVERIFY2(good, qPrintable(error.message));
        QVERIFY(waitFinished(good));
        QVERIFY(!runner.submit(request("print", inputs), &error));
        QCOMPARE(runbox::http::httpStatus(error.kind), 400);
        QCOMPARE(error.code, QStringLiteral("invalid_input"));
        QCOMPARE(runner.jobs().size(), 1);
    }

    void testCancelKillsTheWholeProcessGroup() {
        for (const char* name : {"leader.pid", "child.pid", "grandchild.pid"})
            QFile::remove(m_ws + "/" + name);
        BrokerJobRunner runner(m_catalog, nullptr, options());
        Error error;
        BrokerJob* job = runner.submit(request("tree"), &error);
        QVERIFY2(job, qPrintable(error.message));
        QTRY_VERIFY_WITH_TIMEOUT(
            readPid(m_ws + "/grandchild.pid") > 0 && readPid(m_ws + "/child.pid") > 0, 20000);
        const qint64 leader = job->pid();
        const qint64 child = readPid(m_ws + "/child.pid");
        const qint64 grandchild = readPid(m_ws + "/grandchild.pid");
        // Positive control: the tree runs, and the child really ignores SIGTERM.
        QVERIFY(!gone(leader) && !gone(child) && !gone(grandchild));
        ::kill(static_cast<pid_t>(child), SIGTERM);
        QTest::qWait(200);
        QVERIFY(!gone(child));

        QVERIFY(runner.cancel(job->id(), &error));
        QVERIFY(waitFinished(job));
        QCOMPARE(BrokerJob::stateName(job->state()), QStringLiteral("cancelled"));
        QVERIFY(gone(leader));
        QVERIFY(gone(child));
        QVERIFY(gone(grandchild));
    }

    void testWhatTheLeaderLeavesBehindEndsWithIt() {
        QFile::remove(m_ws + "/leftover.pid");
        BrokerJobRunner runner(m_catalog, nullptr, options());
        Error error;
        BrokerJob* job = runner.submit(request("leftover"), &error);
        QVERIFY(job && waitFinished(job));
        QCOMPARE(BrokerJob::stateName(job->state()), QStringLiteral("completed"));
        const qint64 background = readPid(m_ws + "/leftover.pid");
        QVERIFY(background > 0);
        QVERIFY(gone(background)); // final only once the group is gone
    }

    void testWallClockTimeout() {
        BrokerJobRunner runner(m_catalog, nullptr, options());
        Error error;
        BrokerJob* job = runner.submit(request("slow"), &error);
        QVERIFY(job && waitFinished(job));
        QCOMPARE(BrokerJob::stateName(job->state()), QStringLiteral("timed_out"));
        QVERIFY(job->message().contains("200 ms"));
    }

    void testProgramThatCannotStartIsSetupFailed() {
        BrokerJobRunner runner(m_catalog, nullptr, options());
        Error error;
        BrokerJob* job = runner.submit(request("broken"), &error);
        QVERIFY(job && waitFinished(job));
        QCOMPARE(BrokerJob::stateName(job->state()), QStringLiteral("setup_failed"));
        QVERIFY(job->message().contains("/nonexistent/bin/tool"));
    }

    void testJobsQueuePerChipSetNotGlobally() {
        ChipReservations reservations;
        BrokerJobRunner runner(m_catalog, &reservations, options());
        auto onChips = [&](const char* id, QList<int> chips) {
            BrokerJobRequest r = request("wait");
            r.jobId = id;
            r.npuDevices = chips;
            Error error;
            BrokerJob* job = runner.submit(r, &error);
            if (!job)
                qWarning("%s", qPrintable(error.message));
            return job;
        };
        BrokerJob* a = onChips("a", {0});
        BrokerJob* b = onChips("b", {0, 1});
        BrokerJob* c = onChips("c", {2});
        QVERIFY(a && b && c);
        // A granted job starts once its workspace's before-picture is taken (BrokerOutputs).
        QTRY_COMPARE_WITH_TIMEOUT(a->state(), BrokerJob::State::Running, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(c->state(), BrokerJob::State::Running, 5000); // no global FIFO
        QCOMPARE(b->state(), BrokerJob::State::Queued); // shares chip 0 with a
        // A sandboxed execution holding chip 3 delays a job on chip 3 the same way.
        QCOMPARE(reservations.acquire("exec-1", {3}).outcome, ChipReservations::Outcome::Granted);
        BrokerJob* d = onChips("d", {3});
        QCOMPARE(d->state(), BrokerJob::State::Queued);
        Error error;
        QVERIFY(runner.cancel("a", &error));
        QVERIFY(waitFinished(a));
        QTRY_COMPARE_WITH_TIMEOUT(b->state(), BrokerJob::State::Running, 5000);
        reservations.release("exec-1");
        QTRY_COMPARE_WITH_TIMEOUT(d->state(), BrokerJob::State::Running, 5000);
        QCOMPARE(d->spec().environment.value("ASCEND_RT_VISIBLE_DEVICES"), QStringLiteral("3"));
        // A queued job cancels at once and never starts.
        BrokerJob* e = onChips("e", {2});
        QCOMPARE(e->state(), BrokerJob::State::Queued);
        QVERIFY(runner.cancel("e", &error));
        QCOMPARE(e->state(), BrokerJob::State::Cancelled);
        QVERIFY(!runner.cancel("nope", &error));
        QCOMPARE(error.code, QStringLiteral("job_not_found"));
        QVERIFY(!runner.submit(
            [&] {
                BrokerJobRequest r = request("wait");
                r.jobId = "b";
                return r;
            }(),
            &error));
        QCOMPARE(error.code, QStringLiteral("duplicate_job"));
        runner.shutdown();
        for (BrokerJob* job : {b, c, d})
            QVERIFY(job->isFinal());
    }
};

QTEST_GUILESS_MAIN(TestBrokerJobRunner)
#include "test_broker_job_runner.moc"
