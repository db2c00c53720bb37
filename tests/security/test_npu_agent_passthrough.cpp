// NPU passthrough through the REAL agent against a simulated Ascend host (docs/npu.md "Launch with
// chips"): the chips an execution names, and only those, exist in its sandbox, renumbered; an
// occupied chip fails its probe by id and an execution naming it runs nothing; bad chip ids never
// reach a launch.
#include "support/AgentProcess.h"
#include "support/NpuAgentFixture.h"
#include "support/SimulatedNpuHost.h"

#include "shared/ApiClient.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace runbox;
using namespace runbox::testsupport;
using runbox::tests::SimulatedNpuHost;

class TestNpuAgentPassthrough final : public QObject {
    Q_OBJECT
private:
    static constexpr gid_t kDeviceGroup = kSimulatedDeviceGroup;
    std::unique_ptr<QTemporaryDir> m_registry;
    std::unique_ptr<SimulatedNpuHost> m_host;
    std::unique_ptr<AgentProcess> m_agent;
    QString m_ws;

    ApiClient* client() const { return m_agent->client(); }
    QString marker(const QString& name) const {
        return m_agent->workspaceDir(m_ws) + QLatin1Char('/') + name;
    }
    ExecOutcome shellOn(const QString& code, const QJsonValue& chips) {
        return m_agent->shell(m_ws, code, QJsonObject{{"npuDevices", chips}});
    }
    QJsonObject chipsResponse(bool refresh) {
        const ApiResponse r = client()->call(
            "GET", refresh ? "/v1/npu/chips?refresh=true" : "/v1/npu/chips", {}, 60000);
        if (r.status != 200)
            qWarning("GET /v1/npu/chips: %d %s", r.status, r.body.constData());
        return r.json();
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
        m_agent = std::make_unique<AgentProcess>();
        AgentOptions options;
        options.extraEnv = simulatedNpuEnvironment(*m_host);
        // The same checks under a root agent (ctest runs this binary a second time with
        // RUNBOX_TEST_ROOT_AGENT=1): chip probes and executions then run as unprivileged uids,
        // which reach the chips only through the nodes' group (0660, not root's group).
        QVERIFY(prepareRootAgentIfAsked(*m_host, &options, &m_registry));
        QVERIFY2(m_agent->start(options), qPrintable(m_agent->errorString()));
        m_ws = m_agent->createWorkspace();
        QVERIFY2(!m_ws.isEmpty(), qPrintable(m_agent->errorString()));
    }

    void init() {
        for (int i = 0; i < 8; ++i)
            m_host->setOccupied(i, false);
    }

    void cleanupTestCase() {
        if (m_agent)
            m_agent->stop();
    }

    void testRootAgentRunsChipExecutionsAsWorkspaceUidWithTheDeviceGroup() {
        if (!qEnvironmentVariableIsSet("RUNBOX_TEST_ROOT_AGENT"))
            QSKIP("only under a root agent (RUNBOX_TEST_ROOT_AGENT=1)");
        const ExecOutcome r = shellOn(QStringLiteral("id -u; id -G; test -r /dev/davinci0 && "
                                                     "test -w /dev/davinci0 && echo rw"),
                                      QJsonArray{2});
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        const QStringList lines = r.stdoutText().split('\n');
        QVERIFY2(lines.value(0).toLongLong() > 65535, qPrintable(r.stdoutText()));
        QVERIFY2(lines.value(1).split(' ').contains(QStringLiteral("65534")),
                 qPrintable(r.stdoutText()));
        // The nodes are 0660 root:kDeviceGroup: "rw" is only possible through that group, which
        // the user namespace does not map (it shows as the overflow gid 65534 inside).
        QCOMPARE(lines.value(2), QStringLiteral("rw"));
        // Without chips, no device group is held.
        const ExecOutcome plain = shellOn(QStringLiteral("id -G"), QJsonArray{});
        QVERIFY2(!plain.stdoutText().contains(QStringLiteral("65534")),
                 qPrintable(plain.describe()));
    }

    void testChipsAreListedWithModelHealthAndProbe() {
        const QJsonObject body = chipsResponse(false);
        QCOMPARE(body.value("source").toString(), QStringLiteral("npu-smi"));
        const QJsonArray chips = body.value("chips").toArray();
        QCOMPARE(chips.size(), 8);
        for (int i = 0; i < chips.size(); ++i) {
            const QJsonObject chip = chips[i].toObject();
            QCOMPARE(chip.value("logicId").toInt(), i);
            QCOMPARE(chip.value("name").toString(), QStringLiteral("Ascend 910B3"));
            QVERIFY(chip.value("supported").toBool());
            QCOMPARE(chip.value("health").toString(), QStringLiteral("OK"));
            QCOMPARE(chip.value("hbmTotalMb").toInteger(), qint64(65536));
            const QJsonObject probe = chip.value("probe").toObject();
            QVERIFY2(probe.value("usable").toBool(),
                     qPrintable(QJsonDocument(chip).toJson(QJsonDocument::Compact)));
            QVERIFY(!probe.value("at").toString().isEmpty());
        }
        const QJsonObject health = client()->call("GET", "/v1/health").json();
        const QJsonObject npu = health.value("npu").toObject();
        QCOMPARE(npu.value("source").toString(), QStringLiteral("npu-smi"));
        QCOMPARE(npu.value("chips").toInt(), 8);
        QCOMPARE(npu.value("usable").toInt(), 8);
        QCOMPARE(npu.value("broker").toBool(), false);
    }

    void testWithoutChipsNoDeviceExistsInside() {
        // Positive control for the next test: the sandbox's /dev has no chip of its own.
        const ExecOutcome out = m_agent->shell(m_ws, QStringLiteral("ls /dev"));
        QCOMPARE(out.status(), QStringLiteral("completed"));
        QVERIFY2(!out.stdoutText().contains(QStringLiteral("davinci")), qPrintable(out.describe()));
        QVERIFY(out.stdoutText().contains(QStringLiteral("null")));
    }

    void testOnlySelectedChipsAreVisibleRenumbered() {
        const ExecOutcome out =
            shellOn(QStringLiteral("ls /dev; echo \"V=$ASCEND_VISIBLE_DEVICES "
                                   "R=$ASCEND_RT_VISIBLE_DEVICES\"; "
                                   "echo \"I=$(stat -c %i /dev/davinci0),$(stat -c %i "
                                   "/dev/davinci1)\""),
                    QJsonArray{5, 2});
        QCOMPARE(out.status(), QStringLiteral("completed"));
        const QStringList lines = out.stdoutText().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QStringList chipNodes;
        static const QRegularExpression chipNode(QStringLiteral("^davinci[0-9]+$"));
        for (const QString& line : lines)
            if (chipNode.match(line).hasMatch())
                chipNodes << line;
        QCOMPARE(chipNodes, QStringList({"davinci0", "davinci1"}));
        QVERIFY(lines.contains(QStringLiteral("davinci_manager")));
        QVERIFY(lines.contains(QStringLiteral("devmm_svm")));
        QVERIFY(lines.contains(QStringLiteral("V=0,1 R=0,1")));
        // Ascending host order: sandbox davinci0 is host chip 2, davinci1 is host chip 5.
        QVERIFY2(lines.contains(
                     QStringLiteral("I=%1,%2").arg(m_host->inodeOf(2)).arg(m_host->inodeOf(5))),
                 qPrintable(out.describe()));
    }

    void testOccupiedChipFailsItsProbeByIdWhileOthersPass() {
        m_host->setOccupied(3, true);
        const QJsonArray chips = chipsResponse(true).value("chips").toArray();
        QCOMPARE(chips.size(), 8);
        for (const QJsonValue& v : chips) {
            const QJsonObject chip = v.toObject();
            const int id = chip.value("logicId").toInt();
            const QJsonObject probe = chip.value("probe").toObject();
            if (id == 3) {
                QVERIFY(!probe.value("usable").toBool());
                QCOMPARE(probe.value("reason").toString(),
                         QStringLiteral("NPU 3 cannot be opened inside the sandbox: dcmi model "
                                        "initialized failed, because the device is used. ret is "
                                        "-8020"));
                // The host's own view still calls it healthy: only the probe tells.
                QCOMPARE(chip.value("health").toString(), QStringLiteral("OK"));
            } else {
                QVERIFY2(probe.value("usable").toBool(),
                         qPrintable(probe.value("reason").toString()));
            }
        }
    }

    void testExecutionOnAFreeChipRuns() {
        // Positive control of the next test.
        QFile::remove(marker("ran-4"));
        const ExecOutcome out = shellOn(QStringLiteral("touch /workspace/ran-4"), QJsonArray{4});
        QCOMPARE(out.status(), QStringLiteral("completed"));
        QVERIFY(QFileInfo::exists(marker("ran-4")));
    }

    void testExecutionNamingAnOccupiedChipEndsSetupFailedAndRunsNothing() {
        m_host->setOccupied(3, true);
        QFile::remove(marker("ran-3"));
        const ExecOutcome sync =
            shellOn(QStringLiteral("touch /workspace/ran-3"), QJsonArray{3, 4});
        QCOMPARE(sync.httpStatus, 200);
        QCOMPARE(sync.status(), QStringLiteral("setup_failed"));
        QVERIFY2(sync.exitEvent.value("reason").toString().startsWith(
                     QStringLiteral("NPU 3 cannot be opened inside the sandbox")),
                 qPrintable(sync.describe()));
        QVERIFY(!QFileInfo::exists(marker("ran-3")));

        const ApiResponse submitted = client()->call("POST", "/v1/executions",
                                                     QJsonObject{{"workspace", m_ws},
                                                                 {"kind", "shell"},
                                                                 {"code", "touch /workspace/ran-3"},
                                                                 {"npuDevices", QJsonArray{4, 3}}});
        QCOMPARE(submitted.status, 202);
        const QString id = submitted.json().value("executionId").toString();
        const QJsonObject record = waitForExecution(client(), id, isFinalState);
        QCOMPARE(record.value("state").toString(), QStringLiteral("setup_failed"));
        QVERIFY(record.value("statusReason").toString().contains(QStringLiteral("NPU 3")));
        QCOMPARE(record.value("permissionEpoch").toObject().value("npuDevices").toArray(),
                 QJsonArray({3, 4}));
        QVERIFY(!QFileInfo::exists(marker("ran-3")));
        // Its chips were given back: chip 4 runs again at once.
        const ExecOutcome again = shellOn(QStringLiteral("true"), QJsonArray{4});
        QCOMPARE(again.status(), QStringLiteral("completed"));
    }

    void testInvalidChipIdsAreRefused_data() {
        QTest::addColumn<QJsonValue>("chips");
        QTest::newRow("path") << QJsonValue(QJsonArray{"../sda"});
        QTest::newRow("shell") << QJsonValue(QJsonArray{"0;"});
        QTest::newRow("unknown") << QJsonValue(QJsonArray{99});
        QTest::newRow("numeric string") << QJsonValue(QJsonArray{"2"});
        QTest::newRow("negative") << QJsonValue(QJsonArray{-1});
        QTest::newRow("fraction") << QJsonValue(QJsonArray{1.5});
        QTest::newRow("not an array") << QJsonValue(2);
        QTest::newRow("one bad among good") << QJsonValue(QJsonArray{1, 2, 99});
    }

    void testInvalidChipIdsAreRefused() {
        QFETCH(QJsonValue, chips);
        QFile::remove(marker("bad"));
        const ExecOutcome sync = shellOn(QStringLiteral("touch /workspace/bad"), chips);
        QCOMPARE(sync.httpStatus, 400);
        QCOMPARE(sync.errorCode(), QStringLiteral("invalid_npu_devices"));
        const ApiResponse managed = client()->call("POST", "/v1/executions",
                                                   QJsonObject{{"workspace", m_ws},
                                                               {"kind", "shell"},
                                                               {"code", "touch /workspace/bad"},
                                                               {"npuDevices", chips}});
        QCOMPARE(managed.status, 400);
        QCOMPARE(managed.errorCode(), QStringLiteral("invalid_npu_devices"));
        QVERIFY(!QFileInfo::exists(marker("bad")));
    }

    void testDuplicateChipIdsCollapse() {
        const ExecOutcome out =
            shellOn(QStringLiteral("ls /dev | grep -c '^davinci[0-9]'"), QJsonArray{1, 1, 1});
        QCOMPARE(out.status(), QStringLiteral("completed"));
        QCOMPARE(out.stdoutText().trimmed(), QStringLiteral("1"));
    }
};

QTEST_GUILESS_MAIN(TestNpuAgentPassthrough)
#include "test_npu_agent_passthrough.moc"
