// The Workspaces page against a real runbox-agent (support/AgentProcess: unprivileged when the
// test runs as root), offscreen: created through the page's own dialog (strong), listed, its scoped
// token copied (kept for the session only, and the agent accepts it), a refused delete shows the
// agent's message (an unknown id: 404; a workspace an execution holds: 409 workspace_busy), deletes
// through the confirmation (one, then two selected at once) and the rows go; a refresh keeps the
// rows in place. Scripted peers: an agent without GET /v1/workspaces shows the page's "not offered
// yet" state; a light batch past the capacity says how many were not made.
#include "ScriptedPeer.h"
#include "console/app/MainWindow.h"
#include "console/connection/AgentConnection.h"
#include "console/connection/ConnectionManager.h"
#include "console/connection/TokenVault.h"
#include "console/core/ConsoleSettings.h"
#include "console/models/WorkspaceTableModel.h"
#include "console/pages/CreateWorkspaceDialog.h"
#include "console/pages/WorkspacesPage.h"
#include "shared/ApiClient.h"
#include "support/AgentProcess.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QClipboard>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

using namespace runbox::console;

using runbox::testsupport::peerProfile;
using runbox::testsupport::servePeer;
using Answer = runbox::testsupport::PeerAnswer;
using runbox::testsupport::peerNotFound;

class TestWorkspacesPage final : public QObject {
    Q_OBJECT

private:
    runbox::testsupport::AgentProcess m_agent;
    QTemporaryDir m_settingsDir;
    std::unique_ptr<ConsoleSettings> m_settings;
    std::unique_ptr<TokenVault> m_vault;
    std::unique_ptr<ConnectionManager> m_manager;
    std::unique_ptr<MainWindow> m_window;
    std::unique_ptr<runbox::ApiClient> m_client; // the test's own view of the agent
    std::unique_ptr<QAbstractItemModelTester> m_tester;
    AgentProfile m_profile;

    WorkspacesPage* page() const { return m_window->workspacesPage(); }

    /// Creates one strong workspace through the page's dialog; its id.
    QString createThroughDialog() {
        QSignalSpy created(page(), &WorkspacesPage::created);
        QSignalSpy loaded(page(), &WorkspacesPage::loaded);
        page()->newWorkspaces();
        CreateWorkspaceDialog* dialog = nullptr;
        [&] {
            QTRY_VERIFY((dialog = page()->findChild<CreateWorkspaceDialog*>()) &&
                        dialog->isVisible());
        }();
        if (!dialog)
            return {};
        dialog->setLight(false, 5);
        if (dialog->count() != 1 || dialog->isolation() != QLatin1String("strong"))
            return {};
        QTest::mouseClick(dialog->createButton(), Qt::LeftButton);
        [&] { QTRY_COMPARE_WITH_TIMEOUT(created.count(), 1, 20000); }();
        [&] { QTRY_VERIFY_WITH_TIMEOUT(loaded.count() >= 1, 20000); }();
        if (created.isEmpty() || created.at(0).at(0).toInt() != 1)
            return {};
        const QStringList selected = page()->selectedWorkspaceIds();
        return selected.size() == 1 ? selected.first() : QString();
    }

    /// Selects @p ids, presses Delete and answers the confirmation with @p button.
    void deleteThroughConfirmation(const QStringList& ids, QMessageBox::StandardButton button) {
        page()->selectWorkspaces(ids);
        QCOMPARE(page()->selectedWorkspaceIds().size(), ids.size());
        page()->deleteSelected();
        QMessageBox* box = nullptr;
        QTRY_VERIFY(
            (box = page()->findChild<QMessageBox*>(QStringLiteral("confirmDeleteWorkspaces"))) &&
            box->isVisible());
        for (const QString& id : ids)
            QVERIFY2(box->text().contains(id), qPrintable(box->text()));
        box->button(button)->click();
        QTRY_VERIFY(!page()->findChild<QMessageBox*>(QStringLiteral("confirmDeleteWorkspaces")));
    }

    bool listedByAgent(const QString& id) {
        for (const QJsonValue& v :
             m_client->call("GET", "/v1/workspaces").json().value("workspaces").toArray())
            if (v.toObject().value("id").toString() == id)
                return true;
        return false;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString() + u'\n' + m_agent.log()));
        m_client = std::make_unique<runbox::ApiClient>(m_agent.baseUrl(), m_agent.token());
        m_settings = std::make_unique<ConsoleSettings>(m_settingsDir.filePath("console.ini"));
        m_vault = std::make_unique<TokenVault>(QStringLiteral("runbox-console-test"),
                                               TokenVault::Backend::SessionOnly);
        m_manager = std::make_unique<ConnectionManager>(m_vault.get());
        m_window = std::make_unique<MainWindow>(m_settings.get(), m_manager.get());
        m_window->show();
        m_tester = std::make_unique<QAbstractItemModelTester>(
            page()->table()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_profile = {AgentProfile::newId(), QStringLiteral("test-agent"), m_agent.baseUrl()};
        m_window->addAndConnect(m_profile, m_agent.token());
        QTRY_VERIFY_WITH_TIMEOUT(m_window->currentConnection() &&
                                     m_window->currentConnection()->state() ==
                                         AgentConnection::State::Connected,
                                 20000);
        m_window->tabs()->setCurrentWidget(page());
        QCOMPARE(m_window->tabs()->tabText(m_window->tabs()->currentIndex()),
                 QStringLiteral("Workspaces"));
    }

    void cleanupTestCase() {
        m_tester.reset();
        m_window.reset();
        m_manager.reset();
    }

    void testCreateListCopyTokenAndDelete() {
        QSignalSpy loaded(page(), &WorkspacesPage::loaded);
        page()->refresh();
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() >= 1, 10000);
        QVERIFY(!page()->isUnavailableShown());
        const int before = page()->model()->rowCount();

        const QString id = createThroughDialog();
        QVERIFY2(!id.isEmpty(), qPrintable(page()->errorText()));
        QVERIFY(listedByAgent(id));
        const int row = page()->model()->rowOf(id);
        QVERIFY(row >= 0);
        QCOMPARE(page()->model()->rowCount(), before + 1);
        const WorkspaceInfo shown = page()->model()->workspaceAt(row);
        QCOMPARE(shown.isolation, QStringLiteral("strong"));
        QVERIFY(shown.createdAt.isValid());
        QVERIFY2(page()->noticeText().contains(QStringLiteral("1 workspace")),
                 qPrintable(page()->noticeText()));

        // The token of the workspace just made is kept for the session and copies; the agent
        // takes it as that workspace's token (it lists that workspace and no other).
        QVERIFY(page()->copySelectedToken());
        const QString token = QApplication::clipboard()->text();
        QCOMPARE(token, page()->model()->tokenOf(id));
        runbox::ApiClient scoped(m_agent.baseUrl(), token.toUtf8());
        const QJsonArray own =
            scoped.call("GET", "/v1/workspaces").json().value("workspaces").toArray();
        QCOMPARE(own.size(), 1);
        QCOMPARE(own.at(0).toObject().value("id").toString(), id);
        // Never on disk: not in the console's settings.
        m_settings->sync();
        QFile ini(m_settings->location());
        if (ini.open(QIODevice::ReadOnly))
            QVERIFY(!ini.readAll().contains(token.toUtf8()));

        // A refresh keeps the row in place (no reset; a persistent index survives).
        const QPersistentModelIndex kept = page()->model()->index(row, 0);
        QSignalSpy reset(page()->model(), &QAbstractItemModel::modelReset);
        loaded.clear();
        page()->refresh();
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() >= 1, 10000);
        QCOMPARE(reset.count(), 0);
        QVERIFY(kept.isValid());
        QCOMPARE(kept.data().toString(), id);

        // Cancel at the confirmation: nothing is deleted.
        deleteThroughConfirmation({id}, QMessageBox::Cancel);
        QVERIFY(listedByAgent(id));

        // Yes: it goes, from the agent and from the table.
        QSignalSpy finished(page(), &WorkspacesPage::deleteFinished);
        deleteThroughConfirmation({id}, QMessageBox::Yes);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
        QCOMPARE(finished.at(0).at(0).toInt(), 1);
        QCOMPARE(finished.at(0).at(1).toInt(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(page()->model()->rowOf(id), -1, 10000);
        QVERIFY(!listedByAgent(id));
        QVERIFY(page()->errorText().isEmpty());
    }

    /// The Size column is measured through GET /v1/workspaces/{id}/usage after a listing; the
    /// Executions column counts what the agent recorded.
    void testSizeAndRecordedExecutionsShown() {
        const QString id = m_agent.createWorkspace();
        QVERIFY(!id.isEmpty());
        const runbox::ApiResponse submitted =
            m_client->call("POST", "/v1/executions",
                           QJsonObject{{"workspace", id},
                                       {"kind", "shell"},
                                       {"code", "head -c 2097152 /dev/zero > two-mib"}});
        QVERIFY2(submitted.status == 202, submitted.body.constData());
        const QByteArray record =
            "/v1/executions/" + submitted.json().value("executionId").toString().toUtf8();
        QTRY_VERIFY_WITH_TIMEOUT(
            m_client->call("GET", record).json().value("state").toString() == "completed", 60000);
        QSignalSpy loaded(page(), &WorkspacesPage::loaded);
        page()->refresh();
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() >= 1, 10000);
        const int row = page()->model()->rowOf(id);
        QVERIFY(row >= 0);
        QCOMPARE(page()->model()->workspaceAt(row).recordedExecutions, 1);
        QVERIFY(page()
                    ->model()
                    ->index(row, WorkspaceTableModel::ExecutionsColumn)
                    .data()
                    .toString()
                    .startsWith(QStringLiteral("1, ")));
        QTRY_VERIFY_WITH_TIMEOUT(page()->model()->allocatedBytesOf(id) >= 2 * 1024 * 1024, 20000);
        QVERIFY(page()->model()->allocatedBytesOf(id) < 4 * 1024 * 1024);
        QVERIFY(!page()->model()->index(row, WorkspaceTableModel::SizeColumn).data().isNull());
    }

    void testRefusedDeleteShowsTheAgentsMessage() {
        // An id the agent does not know: 404 with its message.
        QSignalSpy finished(page(), &WorkspacesPage::deleteFinished);
        page()->deleteWorkspaces({QStringLiteral("w0000000000000000")});
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
        QCOMPARE(finished.at(0).at(1).toInt(), 1);
        QVERIFY2(page()->errorText().contains(QStringLiteral("no workspace w0000000000000000")),
                 qPrintable(page()->errorText()));

        // A workspace an execution holds: 409 workspace_busy, its row stays.
        const QString id = createThroughDialog();
        QVERIFY(!id.isEmpty());
        const runbox::ApiResponse run = m_client->call(
            "POST", "/v1/executions", {{"workspace", id}, {"kind", "shell"}, {"code", "sleep 60"}});
        if (run.status != 202)
            QSKIP(qPrintable("no managed execution here: " + run.errorMessage()));
        const QString execution = run.json().value("executionId").toString();
        QJsonObject record;
        QTRY_VERIFY_WITH_TIMEOUT(
            (record = m_client->call("GET", "/v1/executions/" + execution.toUtf8()).json())
                    .value("state") != QJsonValue("queued"),
            30000);
        QVERIFY2(record.value("state") == QJsonValue("running"),
                 QJsonDocument(record).toJson().constData());
        finished.clear();
        deleteThroughConfirmation({id}, QMessageBox::Yes);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
        QCOMPARE(finished.at(0).at(1).toInt(), 1);
        QVERIFY2(
            page()->errorText().contains(QStringLiteral("an execution is running in %1").arg(id)),
            qPrintable(page()->errorText()));
        QVERIFY(listedByAgent(id));
        QTRY_VERIFY(page()->model()->rowOf(id) >= 0);

        // Once the execution is over, two selected at once are deleted together.
        m_client->call("POST", "/v1/executions/" + execution.toUtf8() + "/cancel");
        QTRY_VERIFY_WITH_TIMEOUT(
            m_client->call("GET", "/v1/executions/" + execution.toUtf8()).json().value("state") !=
                QJsonValue("running"),
            30000);
        // The cancelled run may still hold the workspace for a moment: retry until it goes.
        for (int i = 0; i < 20 && page()->model()->rowOf(id) >= 0; ++i) {
            finished.clear();
            page()->deleteWorkspaces({id});
            QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
            if (finished.at(0).at(1).toInt() == 0)
                break;
            QTest::qWait(500);
        }
        QTRY_VERIFY_WITH_TIMEOUT(page()->model()->rowOf(id) < 0, 10000);
        QVERIFY(!listedByAgent(id));

        const QString second = createThroughDialog();
        const QString third = createThroughDialog();
        QVERIFY(!second.isEmpty() && !third.isEmpty());
        finished.clear();
        deleteThroughConfirmation({second, third}, QMessageBox::Yes);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
        QCOMPARE(finished.at(0).at(0).toInt(), 2);
        QTRY_VERIFY(page()->model()->rowOf(second) < 0 && page()->model()->rowOf(third) < 0);
        QVERIFY(!listedByAgent(second) && !listedByAgent(third));
    }

    void testAgentWithoutTheRoute() {
        // A peer that speaks the protocol but has no /v1/workspaces.
        QTcpServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        servePeer(&server, [](const QByteArray&) { return Answer{404, peerNotFound()}; });
        AgentConnection old(peerProfile(server), "token");
        old.open();
        QTRY_VERIFY_WITH_TIMEOUT(old.state() == AgentConnection::State::Connected, 10000);
        WorkspacesPage standalone;
        standalone.setConnection(&old);
        QTRY_VERIFY_WITH_TIMEOUT(standalone.isUnavailableShown(), 10000);
        QVERIFY2(standalone.placeholderText().contains(QStringLiteral("GET /v1/workspaces")),
                 qPrintable(standalone.placeholderText()));
        standalone.setConnection(nullptr);
    }

    void testRejectedLightWorkspacesAreCounted() {
        // A light batch past the capacity (docs/contracts.md "Workspaces and executions"): 2 made,
        // 3 rejected; the light idle timeout of the create answer is shown, the capacity line
        // comes from /v1/health. (The real agent makes light workspaces only as root.)
        const QJsonObject made{
            {"id", "a1"},   {"isolation", "light"}, {"createdAt", "2026-12-07T05:00:00.000Z"},
            {"uid", 20001}, {"token", "rbw-a1"},    {"idleTimeoutS", 300}};
        QJsonObject listed = made;
        listed.remove("token");
        listed.remove("idleTimeoutS");
        QTcpServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        bool createdYet = false;
        servePeer(&server, [&](const QByteArray& head) {
            if (head.startsWith("POST /v1/workspaces ")) {
                createdYet = true;
                return Answer{201, {{"workspaces", QJsonArray{made}}, {"rejected", 3}}};
            }
            if (head.startsWith("GET /v1/workspaces "))
                return Answer{200,
                              {{"workspaces", createdYet ? QJsonArray{listed} : QJsonArray{}}}};
            return Answer{404, peerNotFound()};
        });
        AgentConnection peer(peerProfile(server), "token");
        peer.open();
        QTRY_VERIFY_WITH_TIMEOUT(peer.state() == AgentConnection::State::Connected, 10000);
        WorkspacesPage standalone;
        QSignalSpy created(&standalone, &WorkspacesPage::created);
        standalone.setConnection(&peer);
        QTRY_VERIFY_WITH_TIMEOUT(standalone.capacityText().contains(QStringLiteral("1 of 4")),
                                 10000);
        standalone.createWorkspaces({{"isolation", "light"}, {"count", 4}});
        QTRY_COMPARE_WITH_TIMEOUT(created.count(), 1, 10000);
        QCOMPARE(created.at(0).at(0).toInt(), 1);
        QCOMPARE(created.at(0).at(1).toInt(), 3);
        QVERIFY2(standalone.noticeText().contains(QStringLiteral("3 not made")),
                 qPrintable(standalone.noticeText()));
        QTRY_COMPARE_WITH_TIMEOUT(standalone.model()->rowOf(QStringLiteral("a1")), 0, 10000);
        QCOMPARE(standalone.model()->tokenOf(QStringLiteral("a1")), QStringLiteral("rbw-a1"));
        QVERIFY(standalone.model()
                    ->index(0, WorkspaceTableModel::IdleColumn)
                    .data()
                    .toString()
                    .contains(QStringLiteral("300")));
        QCOMPARE(standalone.selectedWorkspaceIds(), QStringList{QStringLiteral("a1")});
        standalone.setConnection(nullptr);
    }
};

QTEST_MAIN(TestWorkspacesPage)
#include "test_workspaces_page.moc"
