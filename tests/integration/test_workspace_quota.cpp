// maxWorkspaceBytes against the real agent: allocated blocks count (a sparse
// `truncate -s 100G` does not trip it), growth past it during a run ends the run
// `quota_exceeded` while it runs, and a run in a workspace already over it never starts.
#include "support/AgentProcess.h"
#include "support/ManagedApi.h"

#include <QFile>
#include <QJsonArray>
#include <QTest>

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

    void testSparseFileDoesNotCountTowardsTheQuota() {
        const QString ws = m_agent.createWorkspace();
        const QJsonObject r = runToEnd(ws, "truncate -s 100G big && sleep 1.5");
        QCOMPARE(r.value("state").toString(), QStringLiteral("completed"));
        QCOMPARE(QFileInfo(m_agent.workspaceDir(ws) + "/big").size(), qint64(100) << 30);
        QCOMPARE(r.value("createdFiles").toArray(), QJsonArray{"big"});
    }

    void testGrowthPastTheQuotaEndsTheRunWhileItRuns_data() {
        QTest::addColumn<QString>("grow");
        QTest::newRow("fallocate") << QStringLiteral("fallocate -l 128M f");
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

    void testRunInAWorkspaceAlreadyOverTheQuotaNeverStarts() {
        QVERIFY(!m_filledWorkspace.isEmpty());
        const QString dir = m_agent.workspaceDir(m_filledWorkspace);
        QVERIFY(QFileInfo(dir + "/f").size() > kQuotaBytes);
        const QJsonObject r = runToEnd(m_filledWorkspace, "echo ran; touch ran");
        QCOMPARE(r.value("state").toString(), QStringLiteral("quota_exceeded"));
        QVERIFY(r.value("startedAt").isNull());
        QVERIFY(!QFile::exists(dir + "/ran"));
        const LogCapture log = readLog(client(), r.value("executionId").toString(), 0, true, 10000);
        QVERIFY(log.bytes.isEmpty());
        QVERIFY(log.endsWithExit());
        QCOMPARE(log.exitEvent.value("status").toString(), QStringLiteral("quota_exceeded"));
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceQuota)
#include "test_workspace_quota.moc"
