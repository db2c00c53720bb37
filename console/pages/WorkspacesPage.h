#pragma once

#include "console/api/WorkspaceInfo.h"
#include "console/pages/AgentPage.h"

#include <QHash>

class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace runbox::console {

class WorkspaceTableModel;
class WorkspaceUsageProbe;

/// The agent's workspaces (`GET /v1/workspaces`, docs/contracts.md "Workspaces and executions"):
/// a sortable table updated in place on refresh (F5), the light tier's and pool's capacity from
/// `/v1/health` when the agent reports them, and the actions:
/// - Create (CreateWorkspaceDialog: one strong, or 1..4096 light): says how many were made and
///   how many the agent rejected;
/// - Delete the selected workspaces (several at once) after a confirmation, one
///   `DELETE /v1/workspaces/{id}` each; every refusal is shown with the agent's message (409
///   `workspace_busy`, `workspace_in_use` for an environment's build workspace…);
/// - Open files: the selected workspace in the Files page (openFilesRequested);
/// - Copy token: the scoped token of a workspace created here. The agent gives it only in the
///   create answer; it is kept in memory for this console session only, never on disk.
/// An agent without the route shows "not offered by this agent yet".
class WorkspacesPage final : public AgentPage {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorkspacesPage)
public:
    explicit WorkspacesPage(QWidget* parent = nullptr);

    void refresh() override;
    WorkspaceTableModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    /// The ids of the selected rows, in the table's (sorted) order.
    QStringList selectedWorkspaceIds() const;
    /// Selects the rows of @p ids (those listed), replacing the selection.
    void selectWorkspaces(const QStringList& ids);
    /// Opens the create dialog (never a nested event loop).
    void newWorkspaces();
    /// Sends `POST /v1/workspaces` with @p body (what CreateWorkspaceDialog::requestBody gives).
    void createWorkspaces(const QJsonObject& body);
    /// Asks for confirmation, then deletes the selected workspaces.
    void deleteSelected();
    /// Deletes @p ids, one request each; refusals are collected and shown together.
    void deleteWorkspaces(const QStringList& ids);
    /// Copies the kept token of the (first) selected workspace to the clipboard; false when the
    /// console has none for it.
    bool copySelectedToken();
    /// The last refusal(s) as shown ("" when none).
    QString errorText() const;
    /// The last create's or delete's outcome as shown ("" when none).
    QString noticeText() const;
    /// The capacity line from `/v1/health` as shown ("" when the agent reports none).
    QString capacityText() const;

Q_SIGNALS:
    /// The list was read and is shown.
    void loaded();
    /// Open files was chosen for workspace @p workspaceId.
    void openFilesRequested(const QString& workspaceId);
    /// A create answered: @p made workspaces made, @p rejected not.
    void created(int made, int rejected);
    /// Every delete of one deleteWorkspaces() answered; @p refused of them were refused.
    void deleteFinished(int deleted, int refused);
    /// The agent refused a request (the text shown).
    void failed(const QString& message);

protected:
    void onConnectionChanged() override;

private:
    void load();
    void showError(const QString& message);
    void showNotice(const QString& message);
    void updateButtons();
    void updateCapacity();
    QString profileId() const;

    WorkspaceTableModel* m_model;
    QSortFilterProxyModel* m_proxy;
    WorkspaceUsageProbe* m_usageProbe; ///< the Size column, after each listing
    QTableView* m_table;
    QLabel* m_capacity;
    QLabel* m_notice;
    QLabel* m_error;
    QPushButton* m_new;
    QPushButton* m_delete;
    QPushButton* m_copy;
    QPushButton* m_files;
    /// Tokens of the workspaces created in this session, per agent profile (memory only).
    QHash<QString, QHash<QString, QString>> m_tokens;
    QStringList m_selectAfterLoad;
    bool m_loading = false;
};

} // namespace runbox::console
