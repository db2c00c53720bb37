// The Fleet board against TWO real agents (support/AgentProcess) and a closed port, offscreen:
// one agent on the simulated Ascend host (support/SimulatedNpuHost, needs root for mknod), one
// with no NPU, and a third profile whose port nothing listens on. The board is a tab of the
// main window; each host has its section: the NPU host's chips as tiles, the others a clear
// line (no NPU and why; unreachable). Chips clicked on the NPU host open the run dialog for
// that host (not the agent selected in the list) with exactly those chips. The NPU agent
// killed: its section says unreachable and no chip of it stays usable or checked; its profile
// disconnected: its section goes. Every agent has its own uid ranges (strong 1887000000+,
// light 1887500000+).
#include "console/app/MainWindow.h"
#include "console/connection/AgentConnection.h"
#include "console/connection/ConnectionManager.h"
#include "console/connection/TokenVault.h"
#include "console/core/ConsoleSettings.h"
#include "console/fleet/FleetHost.h"
#include "console/fleet/FleetHostModel.h"
#include "console/fleet/FleetHostSection.h"
#include "console/fleet/FleetPage.h"
#include "console/models/NpuChipModel.h"
#include "console/pages/RunDialog.h"
#include "support/AgentProcess.h"
#include "support/NpuAgentFixture.h"
#include "support/SimulatedNpuHost.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace runbox::console;
using runbox::tests::SimulatedNpuHost;
using runbox::testsupport::AgentOptions;
using runbox::testsupport::AgentProcess;

namespace {
/// This test's uid ranges, @p slot-th agent: strong 1887000000+, light 1887500000+.
QMap<QString, QString> uidRanges(int slot) {
    return {{"RUNBOX_STRONG_UID_FIRST", QString::number(1887000000LL + slot * 100000)},
            {"RUNBOX_STRONG_UID_COUNT", "64"},
            {"RUNBOX_LIGHT_UID_FIRST", QString::number(1887500000LL + slot * 100000)},
            {"RUNBOX_LIGHT_UID_COUNT", "64"}};
}
} // namespace

class TestFleetPage final : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<SimulatedNpuHost> m_host;
    QTemporaryDir m_emptyRoot;
    AgentProcess m_npuAgent;
    AgentProcess m_plainAgent;
    QTemporaryDir m_settingsDir;
    std::unique_ptr<ConsoleSettings> m_settings;
    std::unique_ptr<TokenVault> m_vault;
    std::unique_ptr<ConnectionManager> m_manager;
    std::unique_ptr<MainWindow> m_window;
    std::unique_ptr<QAbstractItemModelTester> m_tester;
    AgentProfile m_npu, m_plain, m_closed;

    FleetPage* page() const { return m_window->fleetPage(); }
    FleetHostSection* section(const AgentProfile& p) const { return page()->section(p.id); }
    FleetHost::Status status(const AgentProfile& p) const {
        FleetHostSection* s = section(p);
        return s && s->host() ? s->host()->status() : FleetHost::Status::Connecting;
    }

private Q_SLOTS:
    void initTestCase() {
        if (!AgentProcess::runningAsRoot())
            QSKIP("the simulated NPU host needs root (mknod)");
        if (QStandardPaths::findExecutable("bwrap").isEmpty())
            QSKIP("bwrap is not installed");
        m_host = std::make_unique<SimulatedNpuHost>(4);
        QVERIFY2(m_host->isValid(), qPrintable(m_host->error()));
        QVERIFY(runbox::testsupport::shareWithAgent(m_host->root()));
        QVERIFY(runbox::testsupport::shareWithAgent(m_emptyRoot.path()));

        AgentOptions npu;
        npu.extraEnv = runbox::testsupport::simulatedNpuEnvironment(*m_host);
        npu.extraEnv.insert(uidRanges(0));
        QVERIFY2(m_npuAgent.start(npu), qPrintable(m_npuAgent.errorString()));
        AgentOptions plain;
        plain.extraEnv = {{"RUNBOX_NPU_DEVICE_ROOT", m_emptyRoot.path()},
                          {"RUNBOX_NPU_SMI", "/nonexistent/npu-smi"},
                          {"RUNBOX_NPU_DCMI_PATHS", "/nonexistent/libdcmi.so"}};
        plain.extraEnv.insert(uidRanges(1));
        QVERIFY2(m_plainAgent.start(plain), qPrintable(m_plainAgent.errorString()));

        m_settings = std::make_unique<ConsoleSettings>(m_settingsDir.filePath("console.ini"));
        m_vault = std::make_unique<TokenVault>(QStringLiteral("runbox-console-test"),
                                               TokenVault::Backend::SessionOnly);
        m_manager = std::make_unique<ConnectionManager>(m_vault.get());
        m_window = std::make_unique<MainWindow>(m_settings.get(), m_manager.get());
        m_window->resize(1200, 900);
        m_window->show();
        page()->setRefreshIntervalMs(1000);
        m_tester = std::make_unique<QAbstractItemModelTester>(
            page()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);

        QTcpServer probe; // a port nothing listens on once closed
        QVERIFY(probe.listen(QHostAddress::LocalHost));
        const QUrl closedUrl(QStringLiteral("http://127.0.0.1:%1").arg(probe.serverPort()));
        probe.close();
        m_npu = {AgentProfile::newId(), QStringLiteral("a-npu"), m_npuAgent.baseUrl()};
        m_plain = {AgentProfile::newId(), QStringLiteral("b-plain"), m_plainAgent.baseUrl()};
        m_closed = {AgentProfile::newId(), QStringLiteral("c-closed"), closedUrl};
        m_window->addAndConnect(m_npu, m_npuAgent.token());
        m_window->addAndConnect(m_plain, m_plainAgent.token());
        m_window->addAndConnect(m_closed, QByteArrayLiteral("no-agent-here"));
        m_manager->connection(m_npu.id)->setPollIntervalMs(300);
        // The list's selection is the last one added: the closed port, not the NPU host.
        QCOMPARE(m_window->currentConnection()->profile().id, m_closed.id);
    }

    void cleanupTestCase() {
        m_tester.reset();
        m_window.reset();
        m_manager.reset();
        m_plainAgent.stop();
        m_npuAgent.stop();
    }

    void testBoardIsATabWithOneSectionPerHost() {
        const int tab = m_window->tabs()->indexOf(page());
        QVERIFY(tab >= 0);
        QCOMPARE(m_window->tabs()->tabText(tab), QStringLiteral("Fleet"));
        m_window->tabs()->setCurrentIndex(tab);
        QTRY_COMPARE(page()->model()->rowCount(), 3);
        QVERIFY(section(m_npu) && section(m_plain) && section(m_closed));
        QVERIFY(!page()->findChild<QLabel*>(QStringLiteral("fleetEmpty"))->isVisible());
    }

    void testEachHostSaysWhatItHas() {
        QTRY_COMPARE_WITH_TIMEOUT(status(m_npu), FleetHost::Status::Chips, 60000);
        FleetHostSection* npu = section(m_npu);
        QTRY_COMPARE_WITH_TIMEOUT(npu->host()->chips()->inventory().usableCount(), 4, 60000);
        QVERIFY(npu->board()->isVisible());
        QCOMPARE(npu->board()->model()->rowCount(), 4);
        QVERIFY2(npu->statusText().contains(QStringLiteral("4 of 4")),
                 qPrintable(npu->statusText()));

        QTRY_COMPARE_WITH_TIMEOUT(status(m_plain), FleetHost::Status::NoChips, 30000);
        FleetHostSection* plain = section(m_plain);
        QVERIFY2(plain->statusText().startsWith(QStringLiteral("No NPU on this host")),
                 qPrintable(plain->statusText()));
        QVERIFY2(plain->statusText().contains(QStringLiteral("no davinci device")),
                 qPrintable(plain->statusText()));
        QVERIFY(!plain->board()->isVisible());
        QVERIFY(!plain->runButton()->isVisible());

        QTRY_COMPARE_WITH_TIMEOUT(status(m_closed), FleetHost::Status::Unreachable, 30000);
        FleetHostSection* closed = section(m_closed);
        QVERIFY2(closed->statusText().startsWith(QStringLiteral("Unreachable")),
                 qPrintable(closed->statusText()));
        QVERIFY(closed->findChild<QLabel*>(QStringLiteral("hostStatus"))->isVisible());
        QVERIFY(!closed->board()->isVisible());
    }

    void testChosenChipsOpenTheRunDialogForThatHost() {
        FleetHostSection* npu = section(m_npu);
        QVERIFY(npu);
        QVERIFY(!npu->runButton()->isEnabled());
        QListView* board = npu->board();
        for (int chip : {1, 3}) {
            const QRect tile = board->visualRect(board->model()->index(chip, 0));
            QVERIFY(tile.isValid());
            QTest::mouseClick(board->viewport(), Qt::LeftButton, {}, tile.center());
        }
        QCOMPARE(npu->host()->chips()->checkedChips(), (QList<int>{1, 3}));
        QVERIFY(npu->runButton()->isEnabled());
        QTest::mouseClick(npu->runButton(), Qt::LeftButton);
        RunDialog* dialog = nullptr;
        QTRY_VERIFY((dialog = m_window->findChild<RunDialog*>()) && dialog->isVisible());
        QVERIFY(dialog->connection());
        QCOMPARE(dialog->connection()->profile().id, m_npu.id);
        QCOMPARE(dialog->request().npuDevices, (QList<int>{1, 3}));
        QVERIFY2(dialog->windowTitle().contains(QStringLiteral("a-npu")),
                 qPrintable(dialog->windowTitle()));
        dialog->reject();
        QTRY_VERIFY(!m_window->findChild<RunDialog*>());
    }

    void testRefreshKeepsTheChoice() {
        FleetHostSection* npu = section(m_npu);
        page()->setRefreshIntervalMs(0); // only the button reads the chips now
        QTest::qWait(1500);              // answers of earlier reads have come
        QSignalSpy changed(npu->host(), &FleetHost::changed);
        QTest::qWait(1500);
        QVERIFY(changed.isEmpty());
        QTest::mouseClick(page()->findChild<QPushButton*>(QStringLiteral("fleetRefresh")),
                          Qt::LeftButton);
        QTRY_VERIFY(!changed.isEmpty());
        page()->setRefreshIntervalMs(1000);
        QCOMPARE(status(m_npu), FleetHost::Status::Chips);
        QCOMPARE(npu->host()->chips()->checkedChips(), (QList<int>{1, 3}));
    }

    /// A chip an execution holds says so on its tile and tooltip, naming that execution; it is
    /// free again once the execution ends.
    void testAHeldChipNamesItsHolder() {
        FleetHostSection* npu = section(m_npu);
        const QString ws = m_npuAgent.createWorkspace();
        QVERIFY(!ws.isEmpty());
        const runbox::ApiResponse started = m_npuAgent.client()->call(
            "POST", "/v1/executions",
            QJsonObject{{"workspace", ws},
                        {"kind", "shell"},
                        {"code", "while [ ! -e /workspace/go ]; do sleep 0.05; done"},
                        {"npuDevices", QJsonArray{2}}});
        QVERIFY2(started.status == 202 || started.status == 200, started.body.constData());
        const QString id = started.json().value("executionId").toString();
        QVERIFY(!id.isEmpty());
        const QModelIndex chip2 = npu->host()->chips()->index(2, 0);
        QTRY_VERIFY_WITH_TIMEOUT(chip2.data(NpuChipModel::HeldRole).toBool(), 30000);
        QCOMPARE(chip2.data(NpuChipModel::HolderRole).toString(),
                 QStringLiteral("execution %1").arg(id));
        QVERIFY2(chip2.data(Qt::ToolTipRole).toString().contains(id),
                 qPrintable(chip2.data(Qt::ToolTipRole).toString()));
        QVERIFY(!npu->host()->chips()->index(1, 0).data(NpuChipModel::HeldRole).toBool());
        QVERIFY2(npu->statusText().contains(QStringLiteral("1 in use")),
                 qPrintable(npu->statusText()));
        QFile go(m_npuAgent.workspaceDir(ws) + QStringLiteral("/go"));
        QVERIFY(go.open(QIODevice::WriteOnly));
        go.close();
        QTRY_VERIFY_WITH_TIMEOUT(
            !npu->host()->chips()->index(2, 0).data(NpuChipModel::HeldRole).toBool(), 30000);
        QCOMPARE(npu->host()->chips()->index(2, 0).data(NpuChipModel::HolderRole).toString(),
                 QString());
    }

    void testAHostGoingAwayLeavesNoUsableChip() {
        FleetHostSection* npu = section(m_npu);
        m_npuAgent.kill();
        QTRY_COMPARE_WITH_TIMEOUT(status(m_npu), FleetHost::Status::Unreachable, 30000);
        QCOMPARE(npu->host()->chips()->rowCount(), 0);
        QVERIFY(npu->host()->chips()->checkedChips().isEmpty());
        QVERIFY(!npu->board()->isVisible());
        QVERIFY(!npu->runButton()->isVisible());
        QVERIFY2(npu->statusText().startsWith(QStringLiteral("Unreachable")),
                 qPrintable(npu->statusText()));

        m_manager->disconnectProfile(m_npu.id);
        QCOMPARE(page()->model()->rowCount(), 2);
        QVERIFY(!page()->section(m_npu.id));
        QTest::qWait(100); // the connection and its host are deleted later
        page()->refresh();
        QTRY_COMPARE(status(m_plain), FleetHost::Status::NoChips);
    }
};

QTEST_MAIN(TestFleetPage)
#include "test_fleet_page.moc"
