// An agent limited to some of the host's chips (npuChips / RUNBOX_NPU_CHIPS, docs/npu.md
// "Offered chips"; a Slurm pool host gets the chips of its job's GRES) lists, probes and passes
// into sandboxes those chips only: a tenant naming another chip of the same host gets 400 and
// nothing runs. Against the REAL agent on a simulated 8-chip Ascend host; the positive control
// (an unlimited agent lists all 8) is test_npu_agent_passthrough's
// testChipsAreListedWithModelHealthAndProbe, and each test here runs an offered chip first.
#include "support/AgentProcess.h"
#include "support/NpuAgentFixture.h"
#include "support/SimulatedNpuHost.h"

#include "shared/ApiClient.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QStandardPaths>
#include <QtTest>

using namespace runbox;
using namespace runbox::testsupport;
using runbox::tests::SimulatedNpuHost;

class TestNpuOfferedChips final : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<SimulatedNpuHost> m_host;

    /// Starts an agent on the simulated host with RUNBOX_NPU_CHIPS = @p offered.
    std::unique_ptr<AgentProcess> startAgent(const QString& offered) {
        auto agent = std::make_unique<AgentProcess>();
        AgentOptions options;
        options.extraEnv = simulatedNpuEnvironment(*m_host);
        options.extraEnv.insert(QStringLiteral("RUNBOX_NPU_CHIPS"), offered);
        options.startTimeoutMs = 10000;
        if (!agent->start(options))
            qWarning("agent with RUNBOX_NPU_CHIPS=%s: %s", qPrintable(offered),
                     qPrintable(agent->errorString() + QLatin1Char('\n') + agent->log()));
        return agent;
    }

    static QList<int> listedChips(AgentProcess* agent) {
        const ApiResponse r = agent->client()->call("GET", "/v1/npu/chips?refresh=true", {}, 60000);
        QList<int> ids;
        for (const QJsonValue& chip : r.json().value("chips").toArray())
            ids << chip.toObject().value("logicId").toInt();
        return ids;
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

    void testOnlyOfferedChipsAreListedAndUsable() {
        auto agent = startAgent(QStringLiteral("1, 3-4"));
        QVERIFY(agent->isRunning());
        QCOMPARE(listedChips(agent.get()), QList<int>({1, 3, 4}));
        const QJsonObject npu =
            agent->client()->call("GET", "/v1/health").json().value("npu").toObject();
        QCOMPARE(npu.value("chips").toInt(), 3);
        QCOMPARE(npu.value("offeredChips").toArray(), QJsonArray({1, 3, 4}));
        QVERIFY2(npu.value("reason").toString().contains(QStringLiteral("offering 3 of the 8")),
                 qPrintable(npu.value("reason").toString()));

        const QString ws = agent->createWorkspace();
        QVERIFY2(!ws.isEmpty(), qPrintable(agent->errorString()));
        // Positive control: an offered chip reaches the sandbox, as that host's node.
        const ExecOutcome ok = agent->shell(ws, QStringLiteral("stat -c %i /dev/davinci0"),
                                            QJsonObject{{"npuDevices", QJsonArray{3}}});
        QVERIFY2(ok.status() == QLatin1String("completed"), qPrintable(ok.describe()));
        QCOMPARE(ok.stdoutText().trimmed(), QString::number(m_host->inodeOf(3)));
        // The attack: chips of the same host that this agent does not offer.
        const QString marker = agent->workspaceDir(ws) + QStringLiteral("/ran");
        for (const QJsonArray& chips : {QJsonArray{0}, QJsonArray{2}, QJsonArray{3, 7}}) {
            const ExecOutcome refused = agent->shell(ws, QStringLiteral("touch /workspace/ran"),
                                                     QJsonObject{{"npuDevices", chips}});
            QCOMPARE(refused.httpStatus, 400);
            QCOMPARE(refused.errorCode(), QStringLiteral("invalid_npu_devices"));
            const ApiResponse managed =
                agent->client()->call("POST", "/v1/executions",
                                      QJsonObject{{"workspace", ws},
                                                  {"kind", "shell"},
                                                  {"code", "touch /workspace/ran"},
                                                  {"npuDevices", chips}});
            QCOMPARE(managed.status, 400);
            QVERIFY(!QFileInfo::exists(marker));
        }
    }

    void testNoneOffersNoChip() {
        auto agent = startAgent(QStringLiteral("none"));
        QVERIFY(agent->isRunning());
        QCOMPARE(listedChips(agent.get()), QList<int>());
        const QString ws = agent->createWorkspace();
        const ExecOutcome refused =
            agent->shell(ws, QStringLiteral("true"), QJsonObject{{"npuDevices", QJsonArray{0}}});
        QCOMPARE(refused.httpStatus, 400);
        QCOMPARE(refused.errorCode(), QStringLiteral("invalid_npu_devices"));
        // Executions without chips still run.
        QCOMPARE(agent->shell(ws, QStringLiteral("true")).status(), QStringLiteral("completed"));
    }

    void testABadSelectionStopsTheAgentAtStart_data() {
        QTest::addColumn<QString>("offered");
        QTest::newRow("reversed range") << "3-1";
        QTest::newRow("word") << "some";
        QTest::newRow("past the id bound") << "1024";
        QTest::newRow("negative") << "-1";
        QTest::newRow("empty entry") << "1,,2";
        QTest::newRow("empty") << "";
    }

    void testABadSelectionStopsTheAgentAtStart() {
        QFETCH(QString, offered);
        auto agent = startAgent(offered);
        QVERIFY(!agent->isRunning());
        QVERIFY2(agent->log().contains(QStringLiteral("RUNBOX_NPU_CHIPS")) ||
                     agent->log().contains(QStringLiteral("npuChips")),
                 qPrintable(agent->log()));
    }
};

QTEST_GUILESS_MAIN(TestNpuOfferedChips)
#include "test_npu_offered_chips.moc"
