// The console's main window driven against a real runbox-agent started by the test
// (console/README.md): connect with a token, the overview's sandbox conclusion, a script run whose
// output arrives while it runs, cancelling it, and the settings pages and the chip board against
// the agent's routes (docs/contracts.md), and a science environment made, inspected, run in and
// deleted from the Environments page (docs/environments.md).
#include "AgentFixture.h"

#include "console/api/HealthReport.h"
#include "console/api/QuotaValues.h"
#include "console/app/MainWindow.h"
#include "console/connection/ConnectionManager.h"
#include "console/connection/ExecutionFollower.h"
#include "console/connection/TokenVault.h"
#include "console/core/ConsoleSettings.h"
#include "console/models/EntryListModel.h"
#include "console/models/EnvironmentTableModel.h"
#include "console/models/ExecutionTableModel.h"
#include "console/models/NpuChipModel.h"
#include "console/pages/EnvironmentDialogs.h"
#include "console/pages/EnvironmentsPage.h"
#include "console/pages/ExecutionWindow.h"
#include "console/pages/ExecutionsPage.h"
#include "console/pages/NetworkPolicyPage.h"
#include "console/pages/NpuPage.h"
#include "console/pages/OverviewPage.h"
#include "console/pages/QuotasPage.h"
#include "console/pages/RunDialog.h"
#include "console/widgets/HostBanner.h"
#include "console/widgets/LogView.h"
#include "console/widgets/QuotaEditor.h"
#include "shared/ApiClient.h"

#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTest>
#include <QTextBlock>

using namespace runbox::console;

class TestConsoleAgainstAgent final : public QObject {
    Q_OBJECT

private:
    AgentFixture m_agent;
    QTemporaryDir m_settingsDir;
    std::unique_ptr<ConsoleSettings> m_settings;
    std::unique_ptr<TokenVault> m_vault;
    std::unique_ptr<ConnectionManager> m_manager;
    std::unique_ptr<MainWindow> m_window;
    std::unique_ptr<runbox::ApiClient> m_client; // the test's own view of the agent
    AgentProfile m_profile;
    QString m_cancelledExecutionId; ///< from the run test, for the executions page test

    AgentConnection* connection() const { return m_manager->connection(m_profile.id); }

    int statusOf(const QByteArray& path) { return m_client->call("GET", path).status; }

    void closeDialogs() {
        for (QWidget* w : QApplication::topLevelWidgets())
            if (auto* d = qobject_cast<QDialog*>(w); d && d->isVisible())
                d->reject();
    }

private Q_SLOTS:
    void initTestCase() {
        qRegisterMetaType<ExecutionWindow*>();
        QString error;
        QVERIFY2(m_agent.start(&error), qPrintable(error));
        m_client = std::make_unique<runbox::ApiClient>(m_agent.url, m_agent.token);
        m_settings = std::make_unique<ConsoleSettings>(m_settingsDir.filePath("console.ini"));
        m_vault = std::make_unique<TokenVault>(QStringLiteral("runbox-console-test"),
                                               TokenVault::Backend::SessionOnly);
        m_manager = std::make_unique<ConnectionManager>(m_vault.get());
        m_window = std::make_unique<MainWindow>(m_settings.get(), m_manager.get());
        m_window->show();
        m_profile = {AgentProfile::newId(), QStringLiteral("test-agent"), m_agent.url};
    }

    void cleanupTestCase() {
        closeDialogs();
        m_window.reset();
        m_manager.reset();
    }

    void testConnectsWithToken() {
        m_window->addAndConnect(m_profile, m_agent.token);
        QTRY_VERIFY_WITH_TIMEOUT(
            connection() && connection()->state() == AgentConnection::State::Connected, 20000);
        QCOMPARE(m_window->currentConnection(), connection());
        // Every page says which host it is about.
        for (AgentPage* page : m_window->pages())
            QVERIFY2(page->banner()->hostText().contains(m_profile.displayName()),
                     qPrintable(page->banner()->hostText()));
        // The profile is remembered in the fleet file; the token is written neither there nor
        // in the settings.
        m_settings->sync();
        QFile ini(m_settings->location());
        QVERIFY(ini.open(QIODevice::ReadOnly));
        QVERIFY(!ini.readAll().contains(m_agent.token));
        QFile fleet(m_settings->fleetPath());
        QVERIFY(fleet.open(QIODevice::ReadOnly));
        const QByteArray stored = fleet.readAll();
        QVERIFY2(stored.contains("\"test-agent\""), stored.constData());
        QVERIFY(!stored.contains(m_agent.token));
    }

    void testWrongTokenIsRefusedAndAskedAgain() {
        ConnectionManager other(m_vault.get());
        QSignalSpy asked(&other, &ConnectionManager::tokenNeeded);
        const AgentProfile wrong{AgentProfile::newId(), QStringLiteral("wrong"), m_agent.url};
        other.connectProfile(wrong, QByteArray(64, 'a'));
        QTRY_VERIFY_WITH_TIMEOUT(
            other.connection(wrong.id)->state() == AgentConnection::State::AuthFailed, 20000);
        QCOMPARE(asked.count(), 1);
        QVERIFY(!other.connection(wrong.id)->lastError().isEmpty());
    }

    void testOverviewShowsSandboxConclusion() {
        OverviewPage* overview = m_window->overviewPage();
        QTRY_VERIFY_WITH_TIMEOUT(!overview->sandboxHeadline().isEmpty(), 10000);
        const QJsonObject health = m_client->call("GET", "/v1/health").json();
        const HealthReport report(health);
        QCOMPARE(overview->sandboxHeadline(), report.sandboxHeadline());
        const QString findings = overview->findingTexts().join(u'\n');
        const QString bwrapVersion =
            health.value("sandbox").toObject().value("bwrapVersion").toString();
        QVERIFY2(findings.contains(bwrapVersion), qPrintable(findings));
        QVERIFY2(findings.contains(health.value("seccomp").toObject().value("arch").toString()),
                 qPrintable(findings));
        QVERIFY2(findings.contains(QStringLiteral("/proc")), qPrintable(findings));
        // Each agent warning is shown as a warning line of its own.
        for (const QJsonValue& w : health.value("sandbox").toObject().value("warnings").toArray())
            QVERIFY2(findings.contains(w.toString()), qPrintable(w.toString()));
    }

    void testRunShowsOutputWhileRunningThenCancel() {
        QSignalSpy opened(m_window.get(), &MainWindow::executionWindowOpened);
        // Through the run dialog, as an operator would.
        m_window->openRunDialog();
        RunDialog* dialog = nullptr;
        QTRY_VERIFY((dialog = m_window->findChild<RunDialog*>()) && dialog->isVisible());
        dialog->setKind(QStringLiteral("shell"));
        dialog->setScript(QStringLiteral("echo first-line\necho to-stderr >&2\nsleep 120\n"
                                         "echo never-printed\n"));
        QVERIFY2(dialog->problems().isEmpty(), qPrintable(dialog->problems().join(u'\n')));
        QTest::mouseClick(dialog->runButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 20000);
        auto* window = opened.at(0).at(0).value<ExecutionWindow*>();
        QVERIFY(window);
        ExecutionFollower* follower = window->follower();
        LogView* log = window->logView();
        QVERIFY2(window->windowTitle().contains(m_profile.displayName()),
                 qPrintable(window->windowTitle()));

        // Output arrives while the execution is still running.
        QTRY_VERIFY_WITH_TIMEOUT(log->plainText().contains(QStringLiteral("first-line")), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(log->plainText().contains(QStringLiteral("to-stderr")), 10000);
        QVERIFY(!follower->isFinished());
        QCOMPARE(follower->info().state, QStringLiteral("running"));
        QVERIFY(window->cancelAction()->isEnabled());

        // stderr is drawn differently from stdout.
        const QTextDocument* doc = log->editor()->document();
        QColor stdoutColor, stderrColor;
        for (QTextBlock b = doc->begin(); b.isValid(); b = b.next()) {
            if (b.begin().atEnd())
                continue; // an empty line has no fragment
            const QColor c = b.begin().fragment().charFormat().foreground().color();
            if (b.text() == QLatin1String("first-line"))
                stdoutColor = c;
            if (b.text() == QLatin1String("to-stderr"))
                stderrColor = c;
        }
        QVERIFY(stdoutColor.isValid() && stderrColor.isValid());
        QVERIFY(stdoutColor != stderrColor);

        m_cancelledExecutionId = follower->info().id;
        const QString workspace = follower->info().workspace;
        QVERIFY(!workspace.isEmpty());
        // Positive control: while it runs, its workspace is busy on the agent.
        QCOMPARE(m_client->call("DELETE", "/v1/workspaces/" + workspace.toLatin1()).status, 409);

        window->cancelAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(follower->isFinished(), 20000);
        QCOMPARE(follower->info().state, QStringLiteral("cancelled"));
        QCOMPARE(window->stateText(), ExecutionInfo::stateLabel(QStringLiteral("cancelled")));
        // The agent really ended it: the workspace becomes free, the last line never came.
        int deleteStatus = 0;
        QElapsedTimer clock;
        clock.start();
        QVERIFY(QTest::qWaitFor(
            [&] {
                deleteStatus =
                    m_client->call("DELETE", "/v1/workspaces/" + workspace.toLatin1()).status;
                return deleteStatus != 409;
            },
            20000));
        QCOMPARE(deleteStatus, 200);
        qInfo("workspace freed %lld ms after the cancel was confirmed", clock.elapsed());
        QVERIFY(!log->plainText().contains(QStringLiteral("never-printed")));
        window->close();
    }

    void testExecutionsPageAgainstTheAgent() {
        m_window->tabs()->setCurrentWidget(m_window->executionsPage());
        ExecutionsPage* page = m_window->executionsPage();
        page->refresh();
        if (statusOf("/v1/executions?limit=1") == 404) {
            QTRY_VERIFY_WITH_TIMEOUT(page->isUnavailableShown(), 10000);
            QVERIFY2(page->placeholderText().contains(QStringLiteral("GET /v1/executions")),
                     qPrintable(page->placeholderText()));
            return;
        }
        QTRY_VERIFY_WITH_TIMEOUT(!page->model()->isLoading(), 10000);
        QVERIFY(!page->isUnavailableShown());
        // The run of the previous test is listed, and opening it replays its log.
        QVERIFY(!m_cancelledExecutionId.isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(page->model()->rowOf(m_cancelledExecutionId) >= 0, 10000);
        const ExecutionInfo listed =
            page->model()->executionAt(page->model()->rowOf(m_cancelledExecutionId));
        QCOMPARE(listed.state, QStringLiteral("cancelled"));
        ExecutionWindow* window = m_window->openExecution(listed);
        QVERIFY(window);
        QCOMPARE(window->follower()->mode(), ExecutionFollower::Mode::Managed);
        QTRY_VERIFY_WITH_TIMEOUT(window->follower()->isFinished(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(
            window->logView()->plainText().contains(QStringLiteral("first-line")), 10000);
        // The replay of a finished log keeps every record (stderr too): regression test for
        // the LogStreamSession re-entrancy fix.
        QTRY_VERIFY_WITH_TIMEOUT(
            window->logView()->plainText().contains(QStringLiteral("to-stderr")), 3000);
        window->close();
    }

    void testQuotaChangeIsStoredByTheAgent() {
        QCOMPARE(statusOf("/v1/settings/quotas"), 200);
        QuotasPage* page = m_window->quotasPage();
        m_window->tabs()->setCurrentWidget(page);
        QSignalSpy loaded(page, &QuotasPage::loaded);
        page->refresh();
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
        QVERIFY(page->editor(QStringLiteral("maxOutputBytes")));
        QSignalSpy applied(page, &QuotasPage::applied);
        page->editor(QStringLiteral("maxOutputBytes"))->setDisplayNumber(2.5);
        QVERIFY(page->applyButton()->isEnabled());
        page->apply();
        QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 1, 10000);
        QVERIFY2(applied.at(0).at(0).toBool(), qPrintable(applied.at(0).at(1).toString()));
        const QuotaValues stored =
            QuotaValues::fromJson(m_client->call("GET", "/v1/settings/quotas").json());
        QCOMPARE(stored.value(QStringLiteral("maxOutputBytes")), gibToBytes(2.5));
        QCOMPARE(gibToBytes(2.5), qint64(2684354560));
    }

    void testAllowlistRefusesBadEntryAndAcceptsGoodOne() {
        QCOMPARE(statusOf("/v1/settings/network-policy"), 200);
        NetworkPolicyPage* page = m_window->networkPolicyPage();
        m_window->tabs()->setCurrentWidget(page);
        QSignalSpy loaded(page, &NetworkPolicyPage::loaded);
        page->refresh();
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
        const QString before = page->revisionText();
        QSignalSpy applied(page, &NetworkPolicyPage::applied);
        page->setAllowlistMode(true);
        const int bad = page->domainModel()->addEntry(QStringLiteral("10.0.0.1"));
        QCOMPARE(page->domainModel()->invalidRows(), QList<int>{bad});
        page->apply();
        QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 1, 5000);
        QVERIFY(!applied.at(0).at(0).toBool());
        page->domainModel()->removeRow(bad);
        page->domainModel()->addEntry(QStringLiteral("pypi.org"));
        page->apply();
        QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 2, 10000);
        QVERIFY2(applied.at(1).at(0).toBool(), qPrintable(applied.at(1).at(1).toString()));
        const QJsonObject stored = m_client->call("GET", "/v1/settings/network-policy").json();
        QTRY_COMPARE_WITH_TIMEOUT(page->revisionText(), stored.value("revision").toString(), 10000);
        QVERIFY(page->revisionText() != before);
    }

    void testChipBoardAgainstTheAgent() {
        const runbox::ApiResponse chips = m_client->call("GET", "/v1/npu/chips");
        QCOMPARE(chips.status, 200);
        NpuPage* page = m_window->npuPage();
        QSignalSpy loaded(page, &NpuPage::loaded);
        page->refresh();
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
        const int expected = int(chips.json().value("chips").toArray().size());
        QTRY_COMPARE_WITH_TIMEOUT(page->model()->rowCount(), expected, 10000);
    }

    void testEnvironmentsPageAgainstTheAgent() {
        EnvironmentsPage* page = m_window->environmentsPage();
        m_window->tabs()->setCurrentWidget(page);
        if (statusOf("/v1/environments") == 404) {
            page->refresh();
            QTRY_VERIFY_WITH_TIMEOUT(page->isUnavailableShown(), 10000);
            return;
        }
        const QJsonObject envs =
            m_client->call("GET", "/v1/health").json().value("scientificEnvs").toObject();
        const QJsonObject venv = envs.value("provisioners").toObject().value("venv").toObject();
        if (!venv.value("available").toBool())
            QSKIP(qPrintable("venv unavailable: " + venv.value("reason").toString()));
        page->setPollIntervalMs(300);
        QSignalSpy opened(m_window.get(), &MainWindow::executionWindowOpened);
        QSignalSpy loaded(page, &EnvironmentsPage::loaded);
        page->refresh();
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() >= 1, 10000);
        QVERIFY(!page->isUnavailableShown());

        // New, through its dialog: the first build's log opens in a window and is followed live.
        page->newEnvironment();
        NewEnvironmentDialog* dialog = nullptr;
        QTRY_VERIFY((dialog = page->findChild<NewEnvironmentDialog*>()) && dialog->isVisible());
        dialog->setName(QStringLiteral("console env"));
        QTest::mouseClick(dialog->createButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 20000);
        ExecutionWindow* build = opened.at(0).at(0).value<ExecutionWindow*>();
        QTRY_VERIFY_WITH_TIMEOUT(build->follower()->isFinished(), 180000);
        QVERIFY2(build->follower()->info().state == QLatin1String("completed"),
                 qPrintable(build->follower()->info().statusReason + u'\n' +
                            build->logView()->plainText()));
        const QString envId = build->follower()->info().environmentId;
        QVERIFY2(envId.startsWith(u'e'), qPrintable(envId));
        build->close();

        // The table shows it ready at its first revision; its snapshot lists pip.
        QTRY_VERIFY_WITH_TIMEOUT(
            page->model()->rowOf(envId) >= 0 &&
                page->model()->environmentAt(page->model()->rowOf(envId)).status == "ready",
            20000);
        const EnvironmentInfo env = page->model()->environmentAt(page->model()->rowOf(envId));
        QCOMPARE(env.name, QStringLiteral("console env"));
        QVERIFY(env.isUsable());
        page->selectEnvironment(envId);
        QTRY_COMPARE_WITH_TIMEOUT(page->snapshotRevisionId(), env.currentRevisionId, 10000);
        QCOMPARE(page->revisionRows().size(), 1);
        QVERIFY2(page->revisionRows().first().contains(env.currentRevisionId),
                 qPrintable(page->revisionRows().first()));
        QVERIFY2(page->snapshotRows().join(u'\n').contains(QStringLiteral("pip\t")),
                 qPrintable(page->snapshotRows().join(u'\n')));

        // An install the agent refuses (no wheelhouse here): its message is shown.
        if (envs.value("wheelhouse").isNull()) {
            page->changePackages(envId, PackagesDialog::Mode::Install, {QStringLiteral("numpy")});
            QTRY_VERIFY_WITH_TIMEOUT(
                page->errorText().contains(QStringLiteral("RUNBOX_ENV_WHEELHOUSE")), 10000);
        }

        // The run dialog offers it and the run sees the environment's interpreter.
        const QString ordinary = m_client->call("POST", "/v1/workspaces", QJsonObject{})
                                     .json()
                                     .value("workspaces")
                                     .toArray()
                                     .first()
                                     .toObject()
                                     .value("id")
                                     .toString();
        QVERIFY(!ordinary.isEmpty());
        m_window->openRunDialog({}, envId);
        RunDialog* run = nullptr;
        QTRY_VERIFY((run = m_window->findChild<RunDialog*>()) && run->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(run->environmentChoices().contains(envId), 10000);
        QTRY_COMPARE(run->request().environmentId, envId);
        // The environment's build workspace (the agent's) is not offered to run in.
        QString buildWorkspace;
        for (const QJsonValue& w :
             m_client->call("GET", "/v1/workspaces").json().value("workspaces").toArray())
            if (w.toObject().value("environmentBuild").toString() == envId)
                buildWorkspace = w.toObject().value("id").toString();
        QVERIFY(!buildWorkspace.isEmpty());
        auto* workspaces = run->findChild<QComboBox*>(QStringLiteral("runWorkspace"));
        QVERIFY(workspaces);
        QTRY_VERIFY_WITH_TIMEOUT(workspaces->findData(ordinary) >= 0, 10000); // the list is in
        QVERIFY(workspaces->findData(buildWorkspace) < 0);
        run->setKind(QStringLiteral("shell"));
        run->setScript(QStringLiteral("python3 -c 'import sys; print(\"prefix\", sys.prefix)'\n"));
        QTest::mouseClick(run->runButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 2, 20000);
        ExecutionWindow* exec = opened.at(1).at(0).value<ExecutionWindow*>();
        QTRY_VERIFY_WITH_TIMEOUT(exec->follower()->isFinished(), 60000);
        QTRY_VERIFY2_WITH_TIMEOUT(
            exec->logView()->plainText().contains(QStringLiteral("prefix /opt/science-env")),
            qPrintable(exec->follower()->info().state + u' ' +
                       exec->follower()->info().statusReason + u'\n' +
                       exec->logView()->plainText()),
            10000);
        QTRY_COMPARE_WITH_TIMEOUT(exec->follower()->info().environmentId, envId, 10000);
        QCOMPARE(exec->follower()->info().environmentRevisionId, env.currentRevisionId);
        exec->close();

        // Delete, after a confirmation: Cancel keeps it, Yes deletes it.
        page->selectEnvironment(envId);
        page->deleteSelected();
        QMessageBox* box = nullptr;
        QTRY_VERIFY(
            (box = page->findChild<QMessageBox*>(QStringLiteral("confirmDeleteEnvironment"))) &&
            box->isVisible());
        QVERIFY2(box->text().contains(QStringLiteral("console env")), qPrintable(box->text()));
        box->button(QMessageBox::Cancel)->click();
        QTRY_VERIFY(!page->findChild<QMessageBox*>(QStringLiteral("confirmDeleteEnvironment")));
        QCOMPARE(statusOf("/v1/environments/" + envId.toLatin1()), 200);
        page->deleteSelected();
        QTRY_VERIFY(
            (box = page->findChild<QMessageBox*>(QStringLiteral("confirmDeleteEnvironment"))) &&
            box->isVisible());
        box->button(QMessageBox::Yes)->click();
        QTRY_COMPARE_WITH_TIMEOUT(page->model()->rowOf(envId), -1, 20000);
        QCOMPARE(statusOf("/v1/environments/" + envId.toLatin1()), 404);
    }

    void testLostAgentIsReportedAndRetried() {
        QVERIFY(connection()->state() == AgentConnection::State::Connected);
        m_agent.stop();
        QTRY_VERIFY_WITH_TIMEOUT(connection()->state() == AgentConnection::State::Reconnecting,
                                 20000);
        QTRY_VERIFY_WITH_TIMEOUT(
            m_window->statusBar()->currentMessage().contains(m_profile.displayName()), 5000);
        QVERIFY(connection()->secondsUntilRetry() > 0);
        // The pages say they wait for the host instead of showing stale data as live.
        QVERIFY2(m_window->overviewPage()->banner()->hostText().contains(
                     connection()->stateText().left(5)),
                 qPrintable(m_window->overviewPage()->banner()->hostText()));
    }
};

QTEST_MAIN(TestConsoleAgainstAgent)
#include "test_console_against_agent.moc"
