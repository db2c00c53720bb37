#pragma once

#include "console/api/ExecutionInfo.h"
#include "console/pages/AgentPage.h"

#include <QTimer>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace runbox::console {

class ConsoleSettings;
class ExecutionTableModel;

/// Executions of one agent (`GET /v1/executions`, docs/managed.md) in a lazily paged table,
/// filtered by state and workspace (on the agent) and by text (id, workspace, kind: here),
/// refreshed live. Opening a row asks the main window to show it with its live log.
class ExecutionsPage final : public AgentPage {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecutionsPage)
public:
    explicit ExecutionsPage(ConsoleSettings* settings, QWidget* parent = nullptr);
    ~ExecutionsPage() override;

    void refresh() override;
    void focusFind() override;
    ExecutionTableModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    /// Server-side filters ("" = all).
    void setStateFilter(const QString& state);
    void setWorkspaceFilter(const QString& workspaceId);
    void setTextFilter(const QString& text);
    void setLiveRefresh(bool on);

Q_SIGNALS:
    void openExecution(const runbox::console::ExecutionInfo& execution);
    void runRequested();

protected:
    void onConnectionChanged() override;

private:
    void installFetcher();
    void loadWorkspaces();
    void updateStatus();
    void openRow(const QModelIndex& proxyIndex);

    ConsoleSettings* m_settings;
    ExecutionTableModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    QComboBox* m_state;
    QComboBox* m_workspace;
    QLineEdit* m_text;
    QCheckBox* m_live;
    QLabel* m_status;
    QTimer m_liveTimer;
};

} // namespace runbox::console
