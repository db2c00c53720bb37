// A tenant's deep directory chain against the agent's memory (docs/bounds.md): every execution
// snapshots its workspace before and after (its created/modified/deleted files), and a chain of
// N nested directories holds N paths of up to 2N bytes. A 200,000-level chain made by one sync
// exec took the agent to 23 GB and the host's OOM killer killed it. Here, from inside a real
// sandbox with a workspace token: a 25,000-level chain, then another exec on it; the agent's
// resident memory grows by less than 300 MB (an attack measured 891 MB at 30,000 levels with
// the unbounded snapshot; the growth is quadratic),
// the changes are reported as truncated (filesTruncated), the agent still answers and removes
// the chain with the workspace.
#include "shared/ApiClient.h"
#include "support/AgentProcess.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace runbox;
using namespace runbox::testsupport;

class TestWorkspaceDeepTree final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testADeepChainDoesNotExhaustTheAgentsMemory() {
        AgentProcess agent;
        QVERIFY2(agent.start(), qPrintable(agent.errorString()));
        QByteArray token;
        const QString id = agent.createWorkspace(&token);
        QVERIFY(!id.isEmpty());
        // Positive control: a shallow run reports its created file, complete.
        ExecOutcome small = agent.shell(id, "touch one");
        QCOMPARE(small.status(), QStringLiteral("completed"));
        QVERIFY2(QJsonDocument(small.exitEvent).toJson().contains("one"),
                 QJsonDocument(small.exitEvent).toJson().constData());
        const qint64 before = agent.rssKiB();
        QVERIFY(before > 0);
        const ExecOutcome deep =
            agent.python(id,
                         "import os\nfor _ in range(25000):\n    os.mkdir('a'); os.chdir('a')\n"
                         "print('deep')\n",
                         {}, 300000);
        QCOMPARE(deep.status(), QStringLiteral("completed"));
        QCOMPARE(deep.stdoutText().trimmed(), QStringLiteral("deep"));
        const ExecOutcome again = agent.shell(id, "true", {}, 300000);
        QCOMPARE(again.status(), QStringLiteral("completed"));
        QVERIFY2(again.exitEvent.value("filesTruncated").toBool(),
                 QJsonDocument(again.exitEvent).toJson().constData());
        const qint64 after = agent.rssKiB();
        QVERIFY2(after - before < 300 * 1024,
                 qPrintable(QStringLiteral("agent RSS %1 → %2 KiB").arg(before).arg(after)));
        QCOMPARE(agent.client()->call("GET", "/v1/health").status, 200);
        // The agent removes the chain with descriptors (QTemporaryDir could not).
        const ApiResponse removed =
            agent.client()->call("DELETE", "/v1/workspaces/" + id.toUtf8(), {}, 300000);
        QVERIFY2(removed.status == 200 || removed.status == 204, removed.body.constData());
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceDeepTree)
#include "test_workspace_deep_tree.moc"
