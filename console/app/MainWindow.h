#pragma once

#include "console/api/ExecutionInfo.h"
#include "console/api/RunRequest.h"
#include "console/connection/AgentProfile.h"

#include <QMainWindow>
#include <QPointer>

class QLabel;
class QListView;
class QTabWidget;

namespace runbox::console {

class AgentConnection;
class AgentListActions;
class AgentPage;
class ConnectionManager;
class ConsoleSettings;
class EnvironmentsPage;
class ExecutionFollower;
class ExecutionWindow;
class ExecutionsPage;
class FilesPage;
class FleetPage;
class NetworkPolicyPage;
class NpuPage;
class OverviewPage;
class ProfileListModel;
class QuotasPage;
class WorkspacesPage;

/// The console's main window: the agents on the left (several connected at once), the pages of
/// the selected agent in tabs, then the Fleet board of every connected agent, the status bar for
/// connection news. Window geometry, dock layout
/// and the selected agent are remembered through ConsoleSettings.
class MainWindow final : public QMainWindow {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MainWindow)
public:
    MainWindow(ConsoleSettings* settings, ConnectionManager* manager, QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Saves @p profile (new or edited) and connects with @p token (empty: the stored one).
    void addAndConnect(const AgentProfile& profile, const QByteArray& token);
    /// Shows the pages of @p profileId.
    void selectProfile(const QString& profileId);
    /// The connection the pages show (nullptr when the selected agent is not connected).
    AgentConnection* currentConnection() const;
    /// Opens the run dialog for the current agent, chips and science environment pre-filled.
    void openRunDialog(const QList<int>& chips = {}, const QString& environmentId = {});
    /// Opens the run dialog for @p connection's agent (the Fleet board's host), chips pre-filled.
    void openRunDialogOn(AgentConnection* connection, const QList<int>& chips = {},
                         const QString& environmentId = {});
    /// Starts @p request on the current agent and opens its window when it runs.
    void startRun(const RunRequest& request);
    /// Starts @p request on @p connection's agent and opens its window when it runs.
    void startRunOn(AgentConnection* connection, const RunRequest& request);
    /// Opens a window following @p follower (takes ownership).
    ExecutionWindow* openExecutionWindow(ExecutionFollower* follower);
    /// Opens a window following the managed execution @p execution.
    ExecutionWindow* openExecution(const ExecutionInfo& execution);

    ProfileListModel* profileModel() const { return m_profiles; }
    /// The agents list's operations (add, edit, remove, connect; the fleet file it keeps).
    AgentListActions* agentList() const { return m_agents; }
    QTabWidget* tabs() const { return m_tabs; }
    OverviewPage* overviewPage() const { return m_overview; }
    QuotasPage* quotasPage() const { return m_quotas; }
    NetworkPolicyPage* networkPolicyPage() const { return m_policy; }
    NpuPage* npuPage() const { return m_npu; }
    ExecutionsPage* executionsPage() const { return m_executions; }
    EnvironmentsPage* environmentsPage() const { return m_environments; }
    WorkspacesPage* workspacesPage() const { return m_workspaces; }
    FilesPage* filesPage() const { return m_files; }
    /// Shows the Files page on workspace @p workspaceId.
    void openFiles(const QString& workspaceId);
    /// The Fleet board (every connected agent's chips; not an AgentPage, not in pages()).
    FleetPage* fleetPage() const { return m_fleet; }
    QList<AgentPage*> pages() const;

Q_SIGNALS:
    void executionWindowOpened(runbox::console::ExecutionWindow* window);
    /// A run could not start (translated reason).
    void runFailed(const QString& message);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void buildActions();
    void buildAgentsDock();
    void restoreSession();
    void showPagesFor(const QString& profileId);
    void onCurrentProfileChanged();
    void showSettings();
    void showAbout();
    QString selectedProfileId() const;
    void updateKeychainLabel();

    ConsoleSettings* m_settings;
    ConnectionManager* m_manager;
    ProfileListModel* m_profiles;
    QListView* m_agentList;
    QTabWidget* m_tabs;
    OverviewPage* m_overview;
    QuotasPage* m_quotas;
    NetworkPolicyPage* m_policy;
    NpuPage* m_npu;
    ExecutionsPage* m_executions;
    EnvironmentsPage* m_environments;
    WorkspacesPage* m_workspaces;
    FilesPage* m_files;
    FleetPage* m_fleet;
    QLabel* m_keychainLabel;
    AgentListActions* m_agents;
    QString m_currentProfileId;
    QList<QPointer<ExecutionWindow>> m_windows;
};

} // namespace runbox::console
