// Chip contention and the NPU summary through the REAL agent (docs/npu.md): two executions asking
// for the same chip — the second waits for it (queue policy) or is refused with chip_busy
// (refusal policy); a host without NPU lists no chip and says why.
#include "support/AgentProcess.h"
#include "support/NpuAgentFixture.h"
#include "support/SimulatedNpuHost.h"

#include "shared/ApiClient.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace runbox;
using namespace runbox::testsupport;
using runbox::tests::SimulatedNpuHost;

namespace {

/// A managed shell execution; returns its id (empty on failure, with the answer in @p status).
QString submit(ApiClient* client, const QString& ws, const QString& code, const QJsonArray& chips,
               int* status = nullptr, QString* errorCode = nullptr) {
    const ApiResponse r = client->call(
        "POST", "/v1/executions",
        QJsonObject{{"workspace", ws}, {"kind", "shell"}, {"code", code}, {"npuDevices", chips}});
    if (status)
        *status = r.status;
    if (errorCode)
        *errorCode = r.errorCode();
    return r.status == 202 ? r.json().value("executionId").toString() : QString();
}

QDateTime timeOf(const QJsonObject& record, const char* field) {
    return QDateTime::fromString(record.value(QLatin1String(field)).toString(), Qt::ISODateWithMs);
}

/// Code that holds its chips until the host creates `go` in the workspace.
const QString kHoldUntilGo = QStringLiteral(
    "while [ ! -e /workspace/go ]; do sleep 0.05; done; ls /dev | grep -c '^davinci[0-9]'");

} // namespace

class TestNpuAgentScheduling final : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<SimulatedNpuHost> m_host;

    bool startAgent(AgentProcess* agent, const QMap<QString, QString>& extra = {}) {
        AgentOptions options;
        options.extraEnv = simulatedNpuEnvironment(*m_host);
        for (auto it = extra.begin(); it != extra.end(); ++it)
            options.extraEnv.insert(it.key(), it.value());
        return agent->start(options);
    }
    static void release(AgentProcess* agent, const QString& ws) {
        QFile go(agent->workspaceDir(ws) + QStringLiteral("/go"));
        QVERIFY(go.open(QIODevice::WriteOnly));
    }

private Q_SLOTS:
    void initTestCase() {
        if (!AgentProcess::runningAsRoot())
            QSKIP("the simulated host needs root (mknod)");
        if (QStandardPaths::findExecutable("bwrap").isEmpty())
            QSKIP("bwrap is not installed");
        m_host = std::make_unique<SimulatedNpuHost>(8);
        QVERIFY2(m_host->isValid(), qPrintable(m_host->error()));
        QVERIFY(shareWithAgent(m_host->root()));
    }

    void testSecondExecutionWaitsForTheChipThenRuns() {
        AgentProcess agent;
        QVERIFY2(startAgent(&agent), qPrintable(agent.errorString()));
        const QString wsA = agent.createWorkspace();
        const QString wsB = agent.createWorkspace();
        QVERIFY(!wsA.isEmpty() && !wsB.isEmpty());

        const QString a = submit(agent.client(), wsA, kHoldUntilGo, {6});
        QVERIFY(!a.isEmpty());
        const QJsonObject aRunning = waitForExecution(agent.client(), a, [](const QJsonObject& r) {
            return r.value("state").toString() != QLatin1String("queued");
        });
        QCOMPARE(aRunning.value("state").toString(), QStringLiteral("running"));
        const QJsonObject chips = agent.client()->call("GET", "/v1/npu/chips").json();
        QCOMPARE(chips.value("held").toArray(), QJsonArray{6});
        // The operator sees who holds it; a tenant sees that it is held, not by whom.
        const QJsonArray expectedHolders{QJsonObject{{"chip", 6}, {"execution", a}}};
        QCOMPARE(chips.value("holders").toArray(), expectedHolders);
        QByteArray wsToken;
        QVERIFY(!agent.createWorkspace(&wsToken).isEmpty());
        ApiClient scoped(agent.baseUrl(), wsToken);
        const QJsonObject tenantView = scoped.call("GET", "/v1/npu/chips").json();
        QCOMPARE(tenantView.value("held").toArray(), QJsonArray{6});
        QVERIFY(!tenantView.contains("holders"));

        // Another workspace, so only the chip stands between B and a sandbox.
        const QString b =
            submit(agent.client(), wsB, QStringLiteral("ls /dev | grep -c '^davinci[0-9]'"), {6});
        QVERIFY(!b.isEmpty());
        const QJsonObject bWaiting =
            agent.client()->call("GET", "/v1/executions/" + b.toUtf8()).json();
        QCOMPARE(bWaiting.value("state").toString(), QStringLiteral("queued"));

        release(&agent, wsA);
        const QJsonObject aDone = waitForExecution(agent.client(), a, isFinalState);
        const QJsonObject bDone = waitForExecution(agent.client(), b, isFinalState);
        QCOMPARE(aDone.value("state").toString(), QStringLiteral("completed"));
        QCOMPARE(bDone.value("state").toString(), QStringLiteral("completed"));
        // B's sandbox started only after A had ended and given the chip back.
        QVERIFY(timeOf(bDone, "startedAt") >= timeOf(aDone, "finishedAt"));
        QVERIFY(
            agent.client()->call("GET", "/v1/npu/chips").json().value("held").toArray().isEmpty());
        QVERIFY(agent.stop());
    }

    void testCancelledWaiterNeverRunsAndFreesItsPlace() {
        AgentProcess agent;
        QVERIFY2(startAgent(&agent), qPrintable(agent.errorString()));
        const QString wsA = agent.createWorkspace();
        const QString wsB = agent.createWorkspace();
        const QString a = submit(agent.client(), wsA, kHoldUntilGo, {1});
        QCOMPARE(waitForExecution(agent.client(), a,
                                  [](const QJsonObject& r) {
                                      return r.value("state").toString() != QLatin1String("queued");
                                  })
                     .value("state")
                     .toString(),
                 QStringLiteral("running"));
        const QString b = submit(agent.client(), wsB, QStringLiteral("touch /workspace/ran"), {1});
        QVERIFY(!b.isEmpty());
        const ApiResponse cancelled =
            agent.client()->call("POST", "/v1/executions/" + b.toUtf8() + "/cancel");
        QCOMPARE(cancelled.status, 200);
        QCOMPARE(waitForExecution(agent.client(), b, isFinalState).value("state").toString(),
                 QStringLiteral("cancelled"));
        release(&agent, wsA);
        QCOMPARE(waitForExecution(agent.client(), a, isFinalState).value("state").toString(),
                 QStringLiteral("completed"));
        QVERIFY(!QFile::exists(agent.workspaceDir(wsB) + QStringLiteral("/ran")));
        // Nothing is left holding or awaiting the chip.
        const QString c = submit(agent.client(), wsB, QStringLiteral("true"), {1});
        QCOMPARE(waitForExecution(agent.client(), c, isFinalState).value("state").toString(),
                 QStringLiteral("completed"));
        QVERIFY(agent.stop());
    }

    void testRefusalPolicyAnswersChipBusy() {
        AgentProcess agent;
        QVERIFY2(startAgent(&agent, {{"RUNBOX_NPU_BUSY_POLICY", "refuse"}}),
                 qPrintable(agent.errorString()));
        const QString wsA = agent.createWorkspace();
        const QString wsB = agent.createWorkspace();
        const QString a = submit(agent.client(), wsA, kHoldUntilGo, {1});
        QCOMPARE(waitForExecution(agent.client(), a,
                                  [](const QJsonObject& r) {
                                      return r.value("state").toString() != QLatin1String("queued");
                                  })
                     .value("state")
                     .toString(),
                 QStringLiteral("running"));

        // Positive control: another chip is free.
        const ExecOutcome other =
            agent.shell(wsB, QStringLiteral("true"), QJsonObject{{"npuDevices", QJsonArray{2}}});
        QCOMPARE(other.status(), QStringLiteral("completed"));

        const ExecOutcome sync = agent.shell(wsB, QStringLiteral("touch /workspace/ran"),
                                             QJsonObject{{"npuDevices", QJsonArray{1, 2}}});
        QCOMPARE(sync.httpStatus, 409);
        QCOMPARE(sync.errorCode(), QStringLiteral("chip_busy"));
        QVERIFY(sync.errorJson().value("message").toString().contains(QStringLiteral("NPU 1")));
        int status = 0;
        QString code;
        submit(agent.client(), wsB, QStringLiteral("touch /workspace/ran"), {1}, &status, &code);
        QCOMPARE(status, 409);
        QCOMPARE(code, QStringLiteral("chip_busy"));
        QVERIFY(!QFile::exists(agent.workspaceDir(wsB) + QStringLiteral("/ran")));

        release(&agent, wsA);
        QCOMPARE(waitForExecution(agent.client(), a, isFinalState).value("state").toString(),
                 QStringLiteral("completed"));
        const QJsonObject npu =
            agent.client()->call("GET", "/v1/health").json().value("npu").toObject();
        QCOMPARE(npu.value("busyPolicy").toString(), QStringLiteral("refuse"));
        QVERIFY(agent.stop());
    }

    void testHostWithoutNpuListsNoChipAndSaysWhy() {
        QTemporaryDir emptyRoot;
        QVERIFY(shareWithAgent(emptyRoot.path()));
        AgentProcess agent;
        AgentOptions options;
        options.extraEnv = {{"RUNBOX_NPU_DEVICE_ROOT", emptyRoot.path()},
                            {"RUNBOX_NPU_SMI", "/nonexistent/npu-smi"},
                            {"RUNBOX_NPU_DCMI_PATHS", "/nonexistent/libdcmi.so"}};
        QVERIFY2(agent.start(options), qPrintable(agent.errorString()));
        const ApiResponse r = agent.client()->call("GET", "/v1/npu/chips");
        QCOMPARE(r.status, 200);
        QCOMPARE(r.json().value("source").toString(), QStringLiteral("none"));
        QVERIFY(r.json().value("chips").toArray().isEmpty());
        QVERIFY(r.json().value("reason").toString().contains(QStringLiteral("no davinci device")));
        const QJsonObject npu =
            agent.client()->call("GET", "/v1/health").json().value("npu").toObject();
        QCOMPARE(npu.value("source").toString(), QStringLiteral("none"));
        QCOMPARE(npu.value("chips").toInt(), 0);

        const QString ws = agent.createWorkspace();
        const ExecOutcome out =
            agent.shell(ws, QStringLiteral("true"), QJsonObject{{"npuDevices", QJsonArray{0}}});
        QCOMPARE(out.httpStatus, 400);
        QCOMPARE(out.errorCode(), QStringLiteral("invalid_npu_devices"));
        // Executions without chips are untouched by all of this.
        QCOMPARE(agent.shell(ws, QStringLiteral("true")).status(), QStringLiteral("completed"));
        QVERIFY(agent.stop());
    }
};

QTEST_GUILESS_MAIN(TestNpuAgentScheduling)
#include "test_npu_agent_scheduling.moc"
