// maxWorkspaceBytes against the real agent (docs/bounds.md "Disk"): allocated blocks count (a
// sparse `truncate -s 100G` does not trip it), growth past it during a run ends the run
// `quota_exceeded` while it runs, sync and managed alike, no single file grows past it
// (RLIMIT_FSIZE), a request may tighten it but not loosen it, and a workspace at or over it
// refuses new executions with 413 (no record) until files are deleted through the file API.
#include "support/AgentProcess.h"
#include "support/ExecStream.h"
#include "support/ManagedApi.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QProcess>
#include <QTest>

#include <sys/stat.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {
constexpr qint64 kQuotaBytes = 64 << 20;
/// A run that outlives the watcher's interval many times over: if it ends before this, the
/// watcher ended it.
constexpr int kLongSleepSeconds = 60;
} // namespace

class TestWorkspaceQuota final : public QObject {
    Q_OBJECT

private:
    AgentProcess m_agent;
    QString m_filledWorkspace; ///< left over quota by testGrowthPastTheQuota…
    ApiClient& client() { return *m_agent.client(); }

    QJsonObject runToEnd(const QString& ws, const QString& script) {
        const ApiResponse r =
            submitExecution(client(), ws, {{"argv", QJsonArray{"/usr/bin/bash", "-c", script}}});
        if (r.status != 202)
            return {};
        return waitUntilFinal(client(), r.json().value("executionId").toString(),
                              (kLongSleepSeconds + 30) * 1000);
    }

private Q_SLOTS:
    void initTestCase() {
        AgentOptions options;
        options.extraEnv.insert(QStringLiteral("RUNBOX_MAX_WORKSPACE_BYTES"),
                                QString::number(kQuotaBytes));
        QVERIFY2(m_agent.start(options), qPrintable(m_agent.errorString()));
        QCOMPARE(client()
                     .call("GET", "/v1/settings/quotas")
                     .json()
                     .value("quotas")
                     .toObject()
                     .value("maxWorkspaceBytes")
                     .toInteger(),
                 kQuotaBytes);
    }

    void testWritesUnderTheQuotaComplete() { // positive control for the tests below
        const QString ws = m_agent.createWorkspace();
        const QJsonObject r = runToEnd(ws, "head -c 8388608 /dev/zero > f && sleep 1");
        QCOMPARE(r.value("state").toString(), QStringLiteral("completed"));
        QCOMPARE(QFileInfo(m_agent.workspaceDir(ws) + "/f").size(), qint64(8 << 20));
    }

    void testSparseFilesDoNotCountTowardsTheQuota() {
        // Apparent sizes of 3 × 60 MiB, above the 64 MiB quota; no block allocated.
        const QString ws = m_agent.createWorkspace();
        const QJsonObject r =
            runToEnd(ws, "for f in a b c; do truncate -s 60M $f; done && sleep 1.5");
        QCOMPARE(r.value("state").toString(), QStringLiteral("completed"));
        QCOMPARE(QFileInfo(m_agent.workspaceDir(ws) + "/a").size(), qint64(60) << 20);
        QCOMPARE(r.value("createdFiles").toArray(), (QJsonArray{"a", "b", "c"}));
    }

    void testNoFileGrowsPastTheQuotaEvenSparse() {
        // RLIMIT_FSIZE at maxWorkspaceBytes: the 100 GiB truncate is refused (SIGXFSZ).
        const QString ws = m_agent.createWorkspace();
        const QJsonObject r = runToEnd(ws, "truncate -s 100G big");
        QCOMPARE(r.value("state").toString(), QStringLiteral("quota_exceeded"));
        QVERIFY(QFileInfo(m_agent.workspaceDir(ws) + "/big").size() <= kQuotaBytes);
    }

    void testGrowthPastTheQuotaEndsTheRunWhileItRuns_data() {
        QTest::addColumn<QString>("grow");
        // fallocate(2) itself is refused (EOPNOTSUPP): glibc's posix_fallocate writes instead.
        QTest::newRow("posix_fallocate") << QStringLiteral(
            "python3 -c 'import os; os.posix_fallocate(os.open(\"f\", os.O_CREAT | os.O_WRONLY), "
            "0, 134217728)'");
        QTest::newRow("head -c") << QStringLiteral("head -c 134217728 /dev/zero > f");
    }

    void testGrowthPastTheQuotaEndsTheRunWhileItRuns() {
        QFETCH(QString, grow);
        const QString ws = m_agent.createWorkspace();
        const QJsonObject r =
            runToEnd(ws, grow + QStringLiteral(" && sleep %1").arg(kLongSleepSeconds));
        QCOMPARE(r.value("state").toString(), QStringLiteral("quota_exceeded"));
        QVERIFY(r.value("statusReason").toString().contains("maxWorkspaceBytes"));
        const qint64 durationMs = r.value("durationMs").toInteger(-1);
        qInfo("%s: ended quota_exceeded after %lld ms", qPrintable(grow), durationMs);
        QVERIFY2(durationMs >= 0 && durationMs < kLongSleepSeconds * 1000 / 2,
                 "the run was not stopped while it ran");
        m_filledWorkspace = ws;
    }

    void testFullWorkspaceRefusesExecutionsUntilFilesAreDeleted() {
        QVERIFY(!m_filledWorkspace.isEmpty());
        const QString ws = m_filledWorkspace;
        const QString dir = m_agent.workspaceDir(ws);
        // RLIMIT_FSIZE stopped the writer at the quota: no file is past it.
        QVERIFY(QFileInfo(dir + "/f").size() <= kQuotaBytes);
        const qint64 before = client()
                                  .call("GET", "/v1/executions?limit=1000")
                                  .json()
                                  .value("executions")
                                  .toArray()
                                  .size();
        const ApiResponse managed =
            submitExecution(client(), ws, {{"kind", "shell"}, {"code", "touch ran"}});
        QCOMPARE(managed.status, 413);
        QCOMPARE(managed.errorCode(), QStringLiteral("workspace_quota_exceeded"));
        ExecStream sync(&client(), ws, {{"kind", "shell"}, {"code", "touch ran"}});
        QVERIFY(sync.waitForFinished(30000));
        QCOMPARE(sync.outcome().httpStatus, 413);
        QCOMPARE(sync.outcome().errorCode(), QStringLiteral("workspace_quota_exceeded"));
        QVERIFY(!QFile::exists(dir + "/ran"));
        QCOMPARE(client()
                     .call("GET", "/v1/executions?limit=1000")
                     .json()
                     .value("executions")
                     .toArray()
                     .size(),
                 before); // refused at submit: no record
        // The file API still reads and deletes; once under the quota, executions run again.
        QCOMPARE(client().call("GET", "/v1/workspaces/" + ws.toUtf8() + "/files/f").status, 200);
        QCOMPARE(client().call("DELETE", "/v1/workspaces/" + ws.toUtf8() + "/files/f").status, 200);
        const QJsonObject r = runToEnd(ws, "touch ran");
        QCOMPARE(r.value("state").toString(), QStringLiteral("completed"));
        QVERIFY(QFile::exists(dir + "/ran"));
    }

    void testSyncExecPastATightenedQuotaEndsQuotaExceeded() {
        const QString ws = m_agent.createWorkspace();
        const QString dir = m_agent.workspaceDir(ws);
        // Positive control: the same writer under the agent's 64 MiB completes.
        ExecStream control(&client(), ws,
                           {{"kind", "shell"}, {"code", "head -c 3000000 /dev/zero > ok; rm ok"}});
        QVERIFY(control.waitForFinished(60000));
        QCOMPARE(control.outcome().status(), QStringLiteral("completed"));
        // One file of 50 MB, and many small ones, under a per-request 1 MiB: both stopped.
        for (const char* code : {"head -c 50000000 /dev/zero > big; sleep 30",
                                 "for i in $(seq 200); do head -c 262144 /dev/zero > f$i; done; "
                                 "sleep 30"}) {
            ExecStream run(&client(), ws,
                           {{"kind", "shell"}, {"code", code}, {"maxWorkspaceBytes", 1 << 20}});
            QVERIFY(run.waitForFinished(60000));
            QCOMPARE(run.outcome().httpStatus, 200);
            QCOMPARE(run.outcome().status(), QStringLiteral("quota_exceeded"));
            QVERIFY2(run.outcome().exitEvent.value("durationMs").toInteger() < 15000,
                     "the sync run was not stopped while it ran");
            QVERIFY(QFileInfo(dir + "/big").size() <= (1 << 20)); // no file past the quota
            qint64 total = 0;
            for (const QFileInfo& f : QDir(dir).entryInfoList(QDir::Files))
                total += f.size();
            qInfo("%s: %lld bytes left in the workspace", code, total);
            QProcess::execute("/bin/sh", {"-c", "rm -f " + dir + "/big " + dir + "/f*"});
        }
    }

    /// fallocate(2) of many files put 345 MiB past a 1 MiB quota in 27 ms (36 GiB/s here): an
    /// allocating fallocate is refused in the sandbox, posix_fallocate still works (glibc writes
    /// the blocks), and a fast many-file writer is stopped by the write-reactive watcher.
    void testFallocateIsRefusedAndFastWritersStopNearTheQuota() {
        const QString ws = m_agent.createWorkspace();
        const QString dir = m_agent.workspaceDir(ws);
        ExecStream refused(
            &client(), ws,
            {{"kind", "shell"},
             {"code", "if fallocate -l 1M f 2>&1; then echo allowed; else echo rc=$?; fi; "
                      "python3 -c 'import os; os.posix_fallocate(os.open(\"g\", "
                      "os.O_CREAT | os.O_WRONLY), 0, 1048576)' && du -k g"}});
        QVERIFY(refused.waitForFinished(60000));
        const QByteArray out = refused.outcome().stdoutBytes + refused.outcome().stderrBytes;
        QVERIFY2(refused.outcome().status() == QStringLiteral("completed"), out.constData());
        QVERIFY2(out.contains("Operation not supported") && out.contains("rc=1"), out.constData());
        QVERIFY2(out.contains("1024\tg"), out.constData()); // positive control: 1 MiB allocated
        QProcess::execute("/bin/sh", {"-c", "rm -f " + dir + "/g " + dir + "/f"});

        for (const char* how : {"os.write(fd, chunk)", "os.posix_fallocate(fd, 0, len(chunk))"}) {
            const QString code =
                QStringLiteral("import os\nchunk = bytes(1 << 20)\nfor i in range(1000):\n"
                               "    fd = os.open('f%d' % i, os.O_CREAT | os.O_WRONLY)\n"
                               "    %1\n    os.close(fd)\n")
                    .arg(QString::fromLatin1(how));
            ExecStream run(&client(), ws,
                           {{"kind", "python"}, {"code", code}, {"maxWorkspaceBytes", 1 << 20}});
            QVERIFY(run.waitForFinished(60000));
            QCOMPARE(run.outcome().status(), QStringLiteral("quota_exceeded"));
            qint64 allocated = 0;
            for (const QFileInfo& f : QDir(dir).entryInfoList(QDir::Files)) {
                struct stat st {};
                if (::stat(QFile::encodeName(f.filePath()).constData(), &st) == 0)
                    allocated += qint64(st.st_blocks) * 512;
            }
            qInfo("%s × 1000 files of 1 MiB under 1 MiB: %.1f MiB left", how,
                  double(allocated) / (1 << 20));
            // bench_bounds measures the figure (target < 16 MiB); this is the safety net. On a
            // quiet host the 1 MiB-file writer gets 57-86 MiB past the quota with this agent and
            // the one before it alike (docs/bounds.md "Disk: how far a fast writer gets"), a
            // figure that did not come back since: the net is 128 MiB until its cause is found.
            QVERIFY2(allocated < (128 << 20), "the writer got far past the quota");
            QProcess::execute("/bin/sh", {"-c", "rm -f " + dir + "/f*"});
        }
    }

    void testRequestMayTightenTheQuotaButNotLoosenIt() {
        const QString ws = m_agent.createWorkspace();
        ExecStream looser(
            &client(), ws,
            {{"kind", "shell"}, {"code", "true"}, {"maxWorkspaceBytes", kQuotaBytes * 2}});
        QVERIFY(looser.waitForFinished(30000));
        QCOMPARE(looser.outcome().httpStatus, 400);
        QCOMPARE(looser.outcome().errorCode(), QStringLiteral("quota_override_not_tighter"));
        const ApiResponse unlimited = submitExecution(
            client(), ws, {{"kind", "shell"}, {"code", "true"}, {"maxWorkspaceBytes", 0}});
        QCOMPARE(unlimited.status, 400);
        const ApiResponse tighter = submitExecution(
            client(), ws, {{"kind", "shell"}, {"code", "true"}, {"maxWorkspaceBytes", 1 << 20}});
        QCOMPARE(tighter.status, 202);
        const QJsonObject r =
            waitUntilFinal(client(), tighter.json().value("executionId").toString(), 30000);
        QCOMPARE(r.value("state").toString(), QStringLiteral("completed"));
        QCOMPARE(r.value("permissionEpoch")
                     .toObject()
                     .value("quotas")
                     .toObject()
                     .value("maxWorkspaceBytes")
                     .toInteger(),
                 qint64(1 << 20));
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceQuota)
#include "test_workspace_quota.moc"
