#include "console/app/MainWindow.h"

#include "console/app/AgentListActions.h"
#include "console/app/SettingsDialog.h"
#include "console/connection/ConnectionManager.h"
#include "console/connection/ExecutionFollower.h"
#include "console/connection/ExecutionLauncher.h"
#include "console/connection/TokenVault.h"
#include "console/core/ConsoleSettings.h"
#include "console/fleet/FleetPage.h"
#include "console/models/ExecutionTableModel.h"
#include "console/models/ProfileListModel.h"
#include "console/pages/EnvironmentsPage.h"
#include "console/pages/ExecutionWindow.h"
#include "console/pages/ExecutionsPage.h"
#include "console/pages/FilesPage.h"
#include "console/pages/NetworkPolicyPage.h"
#include "console/pages/NpuPage.h"
#include "console/pages/OverviewPage.h"
#include "console/pages/QuotasPage.h"
#include "console/pages/RunDialog.h"
#include "console/pages/WorkspacesPage.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QLabel>
#include <QListView>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

namespace runbox::console {

namespace {
const QString kWindowKey = QStringLiteral("main");
}

MainWindow::MainWindow(ConsoleSettings* settings, ConnectionManager* manager, QWidget* parent)
    : QMainWindow(parent), m_settings(settings), m_manager(manager),
      m_profiles(new ProfileListModel(manager, this)), m_agentList(new QListView(this)),
      m_tabs(new QTabWidget(this)), m_overview(new OverviewPage(this)),
      m_quotas(new QuotasPage(this)), m_policy(new NetworkPolicyPage(this)),
      m_npu(new NpuPage(this)), m_executions(new ExecutionsPage(settings, this)),
      m_environments(new EnvironmentsPage(this)), m_workspaces(new WorkspacesPage(this)),
      m_files(new FilesPage(this)), m_fleet(new FleetPage(manager, this)),
      m_keychainLabel(new QLabel(this)),
      m_agents(new AgentListActions(this, settings, manager, m_profiles, m_agentList)) {
    setWindowTitle(tr("Runbox Console"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/runbox.svg")));
    setObjectName(QStringLiteral("mainWindow"));
    m_tabs->setDocumentMode(true);
    for (AgentPage* page : pages()) {
        m_tabs->addTab(page, page->icon(), page->title());
        connect(page, &AgentPage::statusMessage, statusBar(), &QStatusBar::showMessage);
    }
    m_tabs->addTab(m_fleet, m_fleet->icon(), m_fleet->title());
    setCentralWidget(m_tabs);
    buildAgentsDock();
    buildActions();
    statusBar()->addPermanentWidget(m_keychainLabel);
    updateKeychainLabel();

    connect(m_manager, &ConnectionManager::statusMessage, statusBar(), &QStatusBar::showMessage);
    connect(m_manager->vault(), &TokenVault::keychainUnavailable, this,
            &MainWindow::updateKeychainLabel);
    connect(m_manager, &ConnectionManager::tokenNeeded, m_agents, &AgentListActions::askToken);
    connect(m_manager, &ConnectionManager::certificateRefused, m_agents,
            &AgentListActions::onCertificateRefused);
    connect(m_agents, &AgentListActions::statusMessage, statusBar(), &QStatusBar::showMessage);
    connect(m_manager, &ConnectionManager::connectionAdded, this, [this](AgentConnection* c) {
        if (c->profile().id == m_currentProfileId)
            showPagesFor(m_currentProfileId);
    });
    connect(m_manager, &ConnectionManager::connectionRemoved, this, [this](const QString& id) {
        if (id == m_currentProfileId)
            for (AgentPage* page : pages())
                page->setConnection(nullptr);
    });
    connect(m_npu, &NpuPage::runRequested, this,
            [this](const QList<int>& chips) { openRunDialog(chips); });
    connect(m_fleet, &FleetPage::runRequested, this,
            [this](const QString& profileId, const QList<int>& chips) {
                openRunDialogOn(m_manager->connection(profileId), chips);
            });
    connect(m_environments, &EnvironmentsPage::runRequested, this,
            [this](const QString& environmentId) { openRunDialog({}, environmentId); });
    connect(m_environments, &EnvironmentsPage::buildStarted, this,
            [this](const QString& executionId) {
                ExecutionInfo build;
                build.id = executionId;
                openExecution(build); // the build's log, live
            });
    connect(m_executions, &ExecutionsPage::runRequested, this, [this] { openRunDialog(); });
    connect(m_executions, &ExecutionsPage::openExecution, this, &MainWindow::openExecution);
    connect(m_workspaces, &WorkspacesPage::openFilesRequested, this, &MainWindow::openFiles);
    restoreSession();
}

MainWindow::~MainWindow() = default;

void MainWindow::openFiles(const QString& workspaceId) {
    m_tabs->setCurrentWidget(m_files);
    m_files->setWorkspace(workspaceId);
}

QList<AgentPage*> MainWindow::pages() const {
    return {m_overview, m_executions, m_workspaces, m_files,
            m_quotas,   m_policy,     m_npu,        m_environments};
}

void MainWindow::buildAgentsDock() {
    auto* dock = new QDockWidget(tr("Agents"), this);
    dock->setObjectName(QStringLiteral("agentsDock"));
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    auto* panel = new QWidget(dock);
    m_agentList->setModel(m_profiles);
    m_agentList->setObjectName(QStringLiteral("agentList"));
    m_agentList->setIconSize(QSize(16, 16));
    m_agentList->setSpacing(2);
    m_agentList->setMinimumWidth(170);
    connect(m_agentList->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &MainWindow::onCurrentProfileChanged);
    connect(m_agentList, &QListView::doubleClicked, m_agents, &AgentListActions::connectSelected);
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_agentList, 1);
    auto* hint = new QLabel(tr("Double-click an agent to connect. Several can be connected at "
                               "once; the pages show the selected one."),
                            panel);
    hint->setWordWrap(true);
    hint->setStyleSheet(QStringLiteral("color: palette(dark);"));
    layout->addWidget(hint);
    dock->setWidget(panel);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
}

void MainWindow::buildActions() {
    auto icon = [](const char* name) { return QIcon(QStringLiteral(":/icons/%1.svg").arg(name)); };
    auto* add = new QAction(icon("add"), tr("&Add agent…"), this);
    add->setShortcut(QKeySequence::New);
    auto* edit = new QAction(icon("edit"), tr("&Edit agent…"), this);
    auto* remove = new QAction(icon("remove"), tr("&Remove agent"), this);
    auto* connectAction = new QAction(icon("connect"), tr("&Connect"), this);
    auto* disconnectAction = new QAction(icon("disconnect"), tr("&Disconnect"), this);
    auto* quit = new QAction(tr("&Quit"), this);
    quit->setShortcut(QKeySequence::Quit);
    auto* refresh = new QAction(icon("refresh"), tr("&Refresh"), this);
    refresh->setShortcut(QKeySequence::Refresh);
    auto* find = new QAction(icon("find"), tr("&Find…"), this);
    find->setShortcut(QKeySequence::Find);
    auto* run = new QAction(icon("run"), tr("&New run…"), this);
    run->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    auto* prefs = new QAction(icon("settings"), tr("&Settings…"), this);
    prefs->setShortcut(QKeySequence::Preferences);
    auto* about = new QAction(icon("runbox"), tr("&About Runbox Console"), this);

    connect(add, &QAction::triggered, m_agents, &AgentListActions::addAgent);
    connect(edit, &QAction::triggered, m_agents, &AgentListActions::editAgent);
    connect(remove, &QAction::triggered, m_agents, &AgentListActions::removeAgent);
    connect(connectAction, &QAction::triggered, m_agents, &AgentListActions::connectSelected);
    connect(disconnectAction, &QAction::triggered, m_agents, &AgentListActions::disconnectSelected);
    connect(quit, &QAction::triggered, this, &QWidget::close);
    connect(refresh, &QAction::triggered, this, [this] {
        if (auto* page = qobject_cast<AgentPage*>(m_tabs->currentWidget()))
            page->refresh();
        else if (m_tabs->currentWidget() == m_fleet)
            m_fleet->refresh();
    });
    connect(find, &QAction::triggered, this, [this] {
        if (auto* page = qobject_cast<AgentPage*>(m_tabs->currentWidget()))
            page->focusFind();
    });
    connect(run, &QAction::triggered, this, [this] { openRunDialog(); });
    connect(prefs, &QAction::triggered, this, &MainWindow::showSettings);
    connect(about, &QAction::triggered, this, &MainWindow::showAbout);

    QMenu* agent = menuBar()->addMenu(tr("&Agent"));
    agent->addActions({add, edit, remove});
    agent->addSeparator();
    agent->addActions({connectAction, disconnectAction});
    agent->addSeparator();
    agent->addAction(quit);
    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addActions({refresh, find});
    view->addSeparator();
    for (int i = 0; i < m_tabs->count(); ++i) {
        auto* go = view->addAction(m_tabs->tabIcon(i), m_tabs->tabText(i));
        go->setShortcut(QKeySequence(Qt::CTRL | (Qt::Key_1 + i)));
        connect(go, &QAction::triggered, this, [this, i] { m_tabs->setCurrentIndex(i); });
    }
    QMenu* runMenu = menuBar()->addMenu(tr("&Run"));
    runMenu->addAction(run);
    menuBar()->addMenu(tr("&Settings"))->addAction(prefs);
    menuBar()->addMenu(tr("&Help"))->addAction(about);

    auto* toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolbar"));
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toolbar->setIconSize(QSize(18, 18));
    toolbar->addActions({add, connectAction, disconnectAction});
    toolbar->addSeparator();
    toolbar->addActions({refresh, run});
}

void MainWindow::restoreSession() {
    m_agents->loadProfiles();
    restoreGeometry(m_settings->windowGeometry(kWindowKey));
    restoreState(m_settings->windowState(kWindowKey));
    if (m_settings->windowGeometry(kWindowKey).isEmpty())
        resize(1180, 760);
    const QStringList connected =
        m_settings->value(ConsoleSettings::Key::ConnectedProfiles).toStringList();
    for (const AgentProfile& p : m_profiles->profiles())
        if (connected.contains(p.id))
            m_manager->connectProfile(p);
    const QString last = m_settings->value(ConsoleSettings::Key::LastProfileId).toString();
    const int row = m_profiles->rowOf(last);
    if (row >= 0 || m_profiles->rowCount() > 0)
        m_agentList->setCurrentIndex(m_profiles->index(row >= 0 ? row : 0));
    else
        showPagesFor({});
}

void MainWindow::closeEvent(QCloseEvent* event) {
    m_settings->setWindowGeometry(kWindowKey, saveGeometry());
    m_settings->setWindowState(kWindowKey, saveState());
    QStringList connected;
    for (AgentConnection* c : m_manager->connections())
        connected << c->profile().id;
    m_settings->setValue(ConsoleSettings::Key::ConnectedProfiles, connected);
    m_settings->setValue(ConsoleSettings::Key::LastProfileId, m_currentProfileId);
    m_settings->sync();
    for (const QPointer<ExecutionWindow>& w : std::as_const(m_windows))
        if (w)
            w->close();
    event->accept();
}

QString MainWindow::selectedProfileId() const {
    return m_agentList->currentIndex().data(ProfileListModel::ProfileIdRole).toString();
}

AgentConnection* MainWindow::currentConnection() const {
    return m_manager->connection(m_currentProfileId);
}

void MainWindow::onCurrentProfileChanged() {
    showPagesFor(selectedProfileId());
}

void MainWindow::selectProfile(const QString& profileId) {
    m_agents->selectProfile(profileId);
}

void MainWindow::showPagesFor(const QString& profileId) {
    m_currentProfileId = profileId;
    AgentConnection* conn = m_manager->connection(profileId);
    for (AgentPage* page : pages())
        page->setConnection(conn);
}

void MainWindow::addAndConnect(const AgentProfile& profile, const QByteArray& token) {
    m_agents->addAndConnect(profile, token);
}

void MainWindow::openRunDialog(const QList<int>& chips, const QString& environmentId) {
    openRunDialogOn(currentConnection(), chips, environmentId);
}

void MainWindow::openRunDialogOn(AgentConnection* conn, const QList<int>& chips,
                                 const QString& environmentId) {
    if (!conn || conn->state() != AgentConnection::State::Connected) {
        statusBar()->showMessage(tr("Connect to an agent first."), 5000);
        return;
    }
    auto* dialog = new RunDialog(conn, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (conn != currentConnection()) // from the Fleet board: say which host it runs on
        dialog->setWindowTitle(tr("Run on %1").arg(conn->profile().displayName()));
    dialog->setChips(chips);
    dialog->setEnvironment(environmentId);
    const QPointer<AgentConnection> target(conn);
    connect(dialog, &QDialog::accepted, this, [this, dialog, target] {
        if (!target) {
            statusBar()->showMessage(tr("The agent went away before the run started."), 8000);
            return;
        }
        startRunOn(target, dialog->request());
    });
    dialog->open();
}

void MainWindow::startRun(const RunRequest& request) {
    startRunOn(currentConnection(), request);
}

void MainWindow::startRunOn(AgentConnection* conn, const RunRequest& request) {
    auto* launcher = new ExecutionLauncher(conn, request, this);
    connect(launcher, &ExecutionLauncher::progress, this,
            [this](const QString& step) { statusBar()->showMessage(step); });
    connect(launcher, &ExecutionLauncher::failed, this, [this](const QString& message) {
        statusBar()->showMessage(message, 10000);
        auto* box =
            new QMessageBox(QMessageBox::Warning, tr("Run"), message, QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open(); // never a nested event loop
        Q_EMIT runFailed(message);
    });
    connect(launcher, &ExecutionLauncher::launched, this,
            [this](ExecutionFollower* follower, bool managed) {
                statusBar()->showMessage(
                    managed ? tr("Execution started.")
                            : tr("Execution started on a sync stream (this agent has no managed "
                                 "executions yet): keep its window open while it runs."),
                    8000);
                openExecutionWindow(follower);
            });
    launcher->start();
}

ExecutionWindow* MainWindow::openExecutionWindow(ExecutionFollower* follower) {
    auto* window = new ExecutionWindow(follower, m_settings, nullptr);
    window->setAttribute(Qt::WA_DeleteOnClose);
    connect(window, &ExecutionWindow::executionChanged, this, [this](const ExecutionInfo& info) {
        if (!info.id.isEmpty() && m_executions->model()->rowOf(info.id) >= 0)
            m_executions->model()->upsert(info);
    });
    m_windows.append(window);
    window->show();
    Q_EMIT executionWindowOpened(window);
    return window;
}

ExecutionWindow* MainWindow::openExecution(const ExecutionInfo& execution) {
    AgentConnection* conn = currentConnection();
    if (!conn || execution.id.isEmpty())
        return nullptr;
    for (const QPointer<ExecutionWindow>& w : std::as_const(m_windows))
        if (w && w->follower() && w->follower()->info().id == execution.id &&
            w->follower()->connection() == conn) {
            w->raise();
            w->activateWindow();
            return w;
        }
    auto* follower = new ExecutionFollower(conn, execution.id);
    follower->start();
    return openExecutionWindow(follower);
}

void MainWindow::showSettings() {
    auto* dialog = new SettingsDialog(m_settings, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const bool languageChanged = dialog->save();
        m_manager->setSshProgram(m_settings->value(ConsoleSettings::Key::SshProgram).toString());
        if (languageChanged)
            statusBar()->showMessage(tr("The new language applies when the console restarts."),
                                     8000);
    });
    dialog->open();
}

void MainWindow::showAbout() {
    QMessageBox::about(
        this, tr("About Runbox Console"),
        tr("<h3>Runbox Console %1</h3><p>The operators' desktop console for Runbox agents: "
           "sandbox health, quotas, network policy, Ascend NPUs, executions and science "
           "environments.</p>"
           "<p>Shortcuts: F5 refresh · Ctrl+F find · Ctrl+R new run · Ctrl+. cancel a run · "
           "Ctrl+1…9 pages.</p>")
            .arg(QStringLiteral(RUNBOX_VERSION)));
}

void MainWindow::updateKeychainLabel() {
    const TokenVault* vault = m_manager->vault();
    m_keychainLabel->setText(vault->keychainAvailable() ? tr("Tokens: system keychain")
                                                        : tr("Tokens: this session only"));
    m_keychainLabel->setToolTip(vault->keychainProblem());
}

} // namespace runbox::console
