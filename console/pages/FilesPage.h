#pragma once

#include "console/api/FileEntry.h"
#include "console/connection/FileTransfer.h" // complete for the transferFinished signal
#include "console/pages/AgentPage.h"

class QComboBox;
class QLabel;
class QPushButton;
class QTableView;

namespace runbox::console {

class FileListModel;
class FilePreview;
class TransferPanel;

/// The files of one workspace (docs/contracts.md "Workspace file API"): a folder listed page by
/// page (FileListModel, `GET …/files/{dir}?offset&limit`), opened by double-click, Up to its
/// parent; a preview of the selected small text file (FilePreview); and the actions:
/// - New folder (`POST …/files:mkdir`), Rename / move (`POST …/files:move`), Delete after a
///   confirmation (`DELETE …/files/{path}`, folders with everything in them);
/// - Upload and Download through FileTransfer (streamed, chunk-signed uploads; progress and
///   Cancel in the TransferPanel; nothing partial is left by a cancel).
/// A link is shown as a link with its target and never followed: not opened, previewed or
/// downloaded. The workspace is picked from the agent's list, or given by the Workspaces page.
class FilesPage final : public AgentPage {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FilesPage)
public:
    explicit FilesPage(QWidget* parent = nullptr);

    void refresh() override;
    /// Shows the root of @p workspaceId (added to the workspace list if it is not there yet).
    void setWorkspace(const QString& workspaceId);
    QString workspaceId() const { return m_workspaceId; }
    /// Lists folder @p path ("" = the workspace root, "a/b" below it).
    void openDirectory(const QString& path);
    QString directory() const;
    /// Opens the parent folder.
    void goUp();
    /// Entries per listing page (the agent's `limit`; 200 by default).
    void setPageSize(int entries) { m_pageSize = qMax(1, entries); }

    FileListModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    FilePreview* preview() const { return m_preview; }
    TransferPanel* transfers() const { return m_transfers; }

    /// The workspace-relative path of @p name in the folder shown.
    QString childPath(const QString& name) const;
    /// The paths of the selected rows.
    QStringList selectedPaths() const;
    /// Selects the row named @p name; false when it is not listed (yet).
    bool selectName(const QString& name);
    /// A folder is opened, a file previewed; a link only says where it points (never followed).
    void activateRow(int row);

    /// Makes folder @p name in the folder shown.
    void makeDirectory(const QString& name);
    /// Moves (renames) @p from to @p to, both workspace-relative.
    void moveEntry(const QString& from, const QString& to);
    /// Deletes @p paths without asking (folders with their contents).
    void deletePaths(const QStringList& paths);
    /// Uploads @p localPath into the folder shown, under its own name; the transfer is shown in
    /// the panel and already started (nullptr when not connected).
    FileTransfer* uploadFile(const QString& localPath, bool overwrite = false);
    /// Downloads @p remotePath to @p localPath (started; nullptr when not connected). The agent
    /// refuses a link: it is never followed.
    FileTransfer* downloadFile(const QString& remotePath, const QString& localPath);

    /// The dialogs behind the buttons (never a nested event loop).
    void newFolder();
    void renameSelected();
    void deleteSelected();
    void chooseUpload();
    void chooseDownload();

    /// The last refusal as shown ("" when none), the last outcome as shown.
    QString errorText() const;
    QString noticeText() const;

Q_SIGNALS:
    /// A listing page of @p path arrived and is shown.
    void pageLoaded(const QString& path);
    /// A mkdir, move or delete answered (every path of a delete); @p ok when all succeeded.
    void operationFinished(bool ok);
    /// A transfer ended (done, failed or cancelled).
    void transferFinished(runbox::console::FileTransfer* transfer);

protected:
    void onConnectionChanged() override;

private:
    void loadWorkspaces();
    void requestPage(const QString& path, qint64 offset);
    void onWorkspacePicked();
    void onSelectionChanged();
    void showError(const QString& message);
    void showNotice(const QString& message);
    void clearMessages();
    void updateButtons();
    QByteArray workspaceRoute(const char* verb) const;
    FileTransfer* track(FileTransfer* transfer);

    FileListModel* m_model;
    QComboBox* m_workspace;
    QLabel* m_path;
    QTableView* m_table;
    FilePreview* m_preview;
    TransferPanel* m_transfers;
    QLabel* m_notice;
    QLabel* m_error;
    QPushButton* m_up;
    QPushButton* m_mkdir;
    QPushButton* m_upload;
    QPushButton* m_download;
    QPushButton* m_rename;
    QPushButton* m_delete;
    QString m_workspaceId;
    int m_pageSize = 200;
    int m_listGeneration = 0;
};

} // namespace runbox::console
