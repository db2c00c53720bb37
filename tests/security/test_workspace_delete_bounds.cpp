// A tenant's deep tree against the strong workspace delete (docs/contracts.md "Workspaces and
// executions"). A root agent (its workspaces on a bind mount of their own), each chain made by
// one sync exec from inside the sandbox:
// - while a 50,000-level workspace is deleted, `GET /v1/health` answers within 1 s, and the
//   workspace is gone at once (its token 401, its files and exec routes 404 to the agent token
//   while the tree is removed); the DELETE answers 200 once nothing of it is left on disk. (The
//   removal ran on the event loop: a 50,000-level delete froze the agent 6–8 s, 120,000 levels
//   under I/O load 118 s.)
// - an agent killed mid-removal leaves no workspace that looks alive: after the restart it is
//   404 and absent from the list, and what was left of its tree is removed.
#include "shared/ApiClient.h"
#include "support/AgentProcess.h"
#include "support/DeepChain.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <unistd.h>

#include <algorithm>

using namespace runbox;
using namespace runbox::testsupport;

class TestWorkspaceDeleteBounds final : public QObject {
    Q_OBJECT
    AgentProcess m_agent;

    /// The entries left in the agent's workspace trash (`<state>/workspaces/.deleting`).
    QStringList trash() const {
        return QDir(m_agent.stateDir() + QStringLiteral("/workspaces/.deleting"))
            .entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
    }

    /// Starts `DELETE /v1/workspaces/{id}` on a client of its own; @p status gets its answer.
    std::unique_ptr<ApiClient> startDelete(const QString& id, int* status) {
        auto client = std::make_unique<ApiClient>(m_agent.baseUrl(), m_agent.token());
        client->request("DELETE", "/v1/workspaces/" + id.toUtf8(), {},
                        [status](const ApiResponse& r) { *status = r.status; });
        return client;
    }

private Q_SLOTS:
    void initTestCase() {
        if (::geteuid() != 0)
            QSKIP("a root agent puts its workspaces on a bind mount, where '..' costs the depth");
        AgentOptions options;
        options.runAsRoot = true;
        // Ranges of its own: other root agents' tests may run at the same time.
        options.extraEnv.insert(QStringLiteral("RUNBOX_STRONG_UID_FIRST"),
                                QStringLiteral("1898000000"));
        options.extraEnv.insert(QStringLiteral("RUNBOX_STRONG_UID_COUNT"), QStringLiteral("64"));
        options.extraEnv.insert(QStringLiteral("RUNBOX_LIGHT_UID_FIRST"), QStringLiteral("58980"));
        options.extraEnv.insert(QStringLiteral("RUNBOX_LIGHT_UID_COUNT"), QStringLiteral("16"));
        m_options = options;
        QVERIFY2(m_agent.start(options), qPrintable(m_agent.errorString()));
    }

    void testTheAgentAnswersWhileADeepTreeIsDeleted() {
        QByteArray token;
        const QString id = workspaceWithDeepChain(m_agent, 50000, &token);
        QVERIFY(!id.isEmpty());
        const QString dir = m_agent.workspaceDir(id);
        QVERIFY(QFileInfo::exists(dir));
        ApiClient tenant(m_agent.baseUrl(), token);
        // Positive control: the tenant's routes work before the delete.
        QCOMPARE(
            tenant.call("GET", "/v1/workspaces/" + id.toUtf8() + "/files/chain?stat=true").status,
            200);

        QElapsedTimer timer;
        timer.start();
        int deleted = 0;
        const auto deleter = startDelete(id, &deleted);
        qint64 worstHealthMs = 0;
        int healthAnswers = 0;
        int tenantStatus = 0; // its token died with it
        int agentStatus = 0;
        int execStatus = 0;
        while (deleted == 0 && timer.elapsed() < 280000) {
            QElapsedTimer health;
            health.start();
            QCOMPARE(m_agent.client()->call("GET", "/v1/health", {}, 280000).status, 200);
            worstHealthMs = std::max(worstHealthMs, health.elapsed());
            ++healthAnswers;
            if (deleted == 0 && tenantStatus == 0) { // asked while the removal runs
                tenantStatus =
                    tenant.call("GET", "/v1/workspaces/" + id.toUtf8() + "/files/chain?stat=true")
                        .status;
                agentStatus =
                    m_agent.client()
                        ->call("GET", "/v1/workspaces/" + id.toUtf8() + "/files/chain?stat=true")
                        .status;
                execStatus = m_agent.shell(id, "true").httpStatus;
            }
            QTest::qWait(50);
        }
        const qint64 deleteMs = timer.elapsed();
        qInfo("delete of 50,000 levels: %lld ms; health answered %d times meanwhile, the slowest "
              "in %lld ms; a stat with its token %d, with the agent's %d, an exec %d",
              deleteMs, healthAnswers, worstHealthMs, tenantStatus, agentStatus, execStatus);
        QCOMPARE(deleted, 200);
        QVERIFY2(worstHealthMs < 1000, qPrintable(QString::number(worstHealthMs)));
        QCOMPARE(tenantStatus, 401);
        QCOMPARE(agentStatus, 404);
        QCOMPARE(execStatus, 404);
        // Once answered, nothing of it is left: not in place, not in the trash.
        QVERIFY(!QFileInfo::exists(dir));
        QVERIFY2(trash().isEmpty(), qPrintable(trash().join(' ')));
        QCOMPARE(m_agent.client()->call("GET", "/v1/workspaces/" + id.toUtf8() + "/usage").status,
                 404);
    }

    /// The live quota watcher of an execution in a 50,000-level workspace measures it again
    /// and again; its passes run off the event loop, so the agent keeps answering in a fraction
    /// of one pass (they ran on the loop: every health call behind a pass waited it out).
    void testTheAgentAnswersWhileADeepWorkspaceIsWatched() {
        const QString id = workspaceWithDeepChain(m_agent, 50000);
        QVERIFY(!id.isEmpty());
        QElapsedTimer usage;
        usage.start(); // the same walk as one watcher pass
        QCOMPARE(m_agent.client()->call("GET", "/v1/workspaces/" + id.toUtf8() + "/usage").status,
                 200);
        const qint64 passMs = usage.elapsed();
        const ApiResponse started = m_agent.client()->call(
            "POST", "/v1/executions",
            QJsonObject{{"workspace", id},
                        {"kind", "shell"},
                        {"code", "sleep 6"},
                        {"maxWorkspaceBytes", qint64(1) << 30}}); // a quota: the watcher runs
        QVERIFY2(started.status == 202, started.body.constData());
        const QString execution = started.json().value("executionId").toString();
        QElapsedTimer timer;
        timer.start();
        qint64 worstHealthMs = 0;
        int healthAnswers = 0;
        QString state;
        while (timer.elapsed() < 60000) {
            QElapsedTimer health;
            health.start();
            QCOMPARE(m_agent.client()->call("GET", "/v1/health", {}, 60000).status, 200);
            worstHealthMs = std::max(worstHealthMs, health.elapsed());
            ++healthAnswers;
            state = m_agent.client()
                        ->call("GET", "/v1/executions/" + execution.toUtf8())
                        .json()
                        .value("state")
                        .toString();
            if (state != QLatin1String("running") && state != QLatin1String("queued"))
                break;
            QTest::qWait(30);
        }
        qInfo("one pass over 50,000 levels: %lld ms; while the watcher ran, health answered %d "
              "times, the slowest in %lld ms",
              passMs, healthAnswers, worstHealthMs);
        QCOMPARE(state, QStringLiteral("completed")); // under its quota: never stopped
        QVERIFY2(worstHealthMs < std::max<qint64>(300, passMs * 3 / 4),
                 qPrintable(QStringLiteral("%1 ms, a pass %2 ms").arg(worstHealthMs).arg(passMs)));
        const ApiResponse removed =
            m_agent.client()->call("DELETE", "/v1/workspaces/" + id.toUtf8(), {}, 120000);
        QVERIFY2(removed.status == 200, removed.body.constData());
    }

    void testAnAgentKilledMidDeleteLeavesNoLiveWorkspace() {
        const QString id = workspaceWithDeepChain(m_agent, 50000);
        QVERIFY(!id.isEmpty());
        int deleted = 0;
        const auto deleter = startDelete(id, &deleted);
        // The removal is under way: the directory is in the trash, not yet gone.
        QTRY_VERIFY_WITH_TIMEOUT(trash().contains(id), 10000);
        QTest::qWait(300);
        QVERIFY2(deleted == 0, "the removal ended before the kill: make the chain deeper");
        m_agent.kill();
        QVERIFY(!QFileInfo::exists(m_agent.workspaceDir(id)));
        QVERIFY(trash().contains(id)); // half-removed, where no load() takes it for a workspace

        QVERIFY2(m_agent.start(m_options), qPrintable(m_agent.errorString()));
        QCOMPARE(m_agent.client()->call("GET", "/v1/workspaces/" + id.toUtf8() + "/usage").status,
                 404);
        const QJsonArray listed =
            m_agent.client()->call("GET", "/v1/workspaces").json().value("workspaces").toArray();
        for (const QJsonValue& w : listed)
            QVERIFY(w.toObject().value("id").toString() != id);
        // The next start removes what was left.
        QTRY_VERIFY_WITH_TIMEOUT(trash().isEmpty(), 280000);
        QCOMPARE(m_agent.client()->call("GET", "/v1/health").status, 200);
    }

private:
    AgentOptions m_options;
};

QTEST_GUILESS_MAIN(TestWorkspaceDeleteBounds)
#include "test_workspace_delete_bounds.moc"
