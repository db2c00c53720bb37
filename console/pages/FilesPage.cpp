#include "console/pages/FilesPage.h"

#include "console/api/ExecutionInfo.h"
#include "console/api/WorkspaceInfo.h"
#include "console/connection/AgentConnection.h"
#include "console/connection/FileTransfer.h"
#include "console/models/FileListModel.h"
#include "console/widgets/FilePreview.h"
#include "console/widgets/HostBanner.h"
#include "console/widgets/TransferPanel.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QJsonObject>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QUrl>
#include <QVBoxLayout>

#include <memory>

namespace runbox::console {

namespace {

QString parentOf(const QString& path) {
    const qsizetype slash = path.lastIndexOf(u'/');
    return slash < 0 ? QString() : path.left(slash);
}
} // namespace

FilesPage::FilesPage(QWidget* parent)
    : AgentPage(tr("Files"), QStringLiteral(":/icons/log.svg"), parent),
      m_model(new FileListModel(this)) {
    auto* content = new QWidget;
    auto icon = [](const char* name) { return QIcon(QStringLiteral(":/icons/%1.svg").arg(name)); };
    m_workspace = new QComboBox(content);
    m_workspace->setObjectName(QStringLiteral("filesWorkspace"));
    m_workspace->setMinimumContentsLength(18);
    m_workspace->setToolTip(tr("The workspace whose files are shown"));
    connect(m_workspace, &QComboBox::activated, this, &FilesPage::onWorkspacePicked);
    m_up = new QPushButton(tr("&Up"), content);
    m_mkdir = new QPushButton(icon("add"), tr("New &folder…"), content);
    m_upload = new QPushButton(tr("&Upload…"), content);
    m_download = new QPushButton(tr("Do&wnload…"), content);
    m_rename = new QPushButton(tr("Re&name / move…"), content);
    m_delete = new QPushButton(icon("remove"), tr("&Delete…"), content);
    auto* refreshButton = new QPushButton(icon("refresh"), tr("Re&fresh"), content);
    m_up->setToolTip(tr("Show the parent folder"));
    m_upload->setToolTip(tr("Upload a file into this folder"));
    m_download->setToolTip(tr("Save the selected file on this computer"));
    m_delete->setToolTip(tr("Delete the selected files and folders"));
    connect(m_up, &QPushButton::clicked, this, &FilesPage::goUp);
    connect(m_mkdir, &QPushButton::clicked, this, &FilesPage::newFolder);
    connect(m_upload, &QPushButton::clicked, this, &FilesPage::chooseUpload);
    connect(m_download, &QPushButton::clicked, this, &FilesPage::chooseDownload);
    connect(m_rename, &QPushButton::clicked, this, &FilesPage::renameSelected);
    connect(m_delete, &QPushButton::clicked, this, &FilesPage::deleteSelected);
    connect(refreshButton, &QPushButton::clicked, this, &FilesPage::refresh);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(new QLabel(tr("Workspace:"), content));
    buttons->addWidget(m_workspace);
    for (QPushButton* b : {m_up, m_mkdir, m_upload, m_download, m_rename, m_delete})
        buttons->addWidget(b);
    buttons->addStretch(1);
    buttons->addWidget(refreshButton);

    m_path = new QLabel(content);
    m_path->setObjectName(QStringLiteral("filesPath"));
    m_path->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notice = messageLabel("filesNotice", "palette(text)", content);
    m_error = messageLabel("filesError", "#c62828", content);

    m_table = new QTableView(content);
    m_table->setObjectName(QStringLiteral("filesTable"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(FileListModel::NameColumn,
                                                      QHeaderView::Stretch);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    connect(m_table, &QTableView::doubleClicked, this,
            [this](const QModelIndex& i) { activateRow(i.row()); });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &FilesPage::onSelectionChanged);
    connect(m_model, &FileListModel::pageWanted, this, &FilesPage::requestPage);

    m_preview = new FilePreview(content);
    m_transfers = new TransferPanel(content);
    auto* split = new QSplitter(Qt::Horizontal, content);
    split->addWidget(m_table);
    split->addWidget(m_preview);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* vsplit = new QSplitter(Qt::Vertical, content);
    vsplit->addWidget(split);
    vsplit->addWidget(m_transfers);
    vsplit->setStretchFactor(0, 4);
    vsplit->setStretchFactor(1, 1);

    auto* layout = new QVBoxLayout(content);
    layout->addLayout(buttons);
    layout->addWidget(m_path);
    layout->addWidget(m_notice);
    layout->addWidget(m_error);
    layout->addWidget(vsplit, 1);
    setContent(content);
    updateButtons();
}

void FilesPage::onConnectionChanged() {
    m_workspace->clear();
    m_workspaceId.clear();
    m_model->setDirectory({});
    m_preview->clear();
    clearMessages();
    updateButtons();
    if (isConnected())
        loadWorkspaces();
}

void FilesPage::refresh() {
    if (!isConnected())
        return;
    loadWorkspaces();
    if (!m_workspaceId.isEmpty())
        openDirectory(directory());
}

void FilesPage::loadWorkspaces() {
    connection()->get("/v1/workspaces", this, [this](const ApiResponse& r) {
        if (isRouteMissing(r))
            return showUnavailable(tr("workspaces"), QStringLiteral("GET /v1/workspaces"));
        if (!r.ok())
            return showError(tr("Could not read the workspaces: %1").arg(r.errorMessage()));
        showContent();
        QStringList ids;
        for (const WorkspaceInfo& w : WorkspaceInfo::listFromJson(r.json()))
            ids << w.id;
        if (!m_workspaceId.isEmpty() && !ids.contains(m_workspaceId))
            ids.prepend(m_workspaceId);
        m_workspace->clear();
        m_workspace->addItems(ids);
        m_workspace->setCurrentIndex(int(ids.indexOf(m_workspaceId)));
        if (m_workspaceId.isEmpty() && !ids.isEmpty()) {
            m_workspace->setCurrentIndex(0);
            onWorkspacePicked();
        }
    });
}

void FilesPage::onWorkspacePicked() {
    const QString id = m_workspace->currentText();
    if (id.isEmpty() || id == m_workspaceId)
        return;
    m_workspaceId = id;
    openDirectory({});
}

void FilesPage::setWorkspace(const QString& workspaceId) {
    if (m_workspace->findText(workspaceId) < 0)
        m_workspace->addItem(workspaceId);
    m_workspace->setCurrentIndex(m_workspace->findText(workspaceId));
    m_workspaceId = workspaceId;
    openDirectory({});
}

QString FilesPage::directory() const {
    return m_model->directory();
}

void FilesPage::openDirectory(const QString& path) {
    m_preview->clear();
    m_model->setDirectory(path);
    m_path->setText(tr("%1:/%2").arg(m_workspaceId, path));
    updateButtons();
    if (isConnected() && !m_workspaceId.isEmpty())
        requestPage(path, 0);
}

void FilesPage::goUp() {
    if (!directory().isEmpty())
        openDirectory(parentOf(directory()));
}

void FilesPage::requestPage(const QString& path, qint64 offset) {
    if (!isConnected() || m_workspaceId.isEmpty())
        return;
    const QByteArray target = FileTransfer::route(m_workspaceId, path) +
                              "?offset=" + QByteArray::number(offset) +
                              "&limit=" + QByteArray::number(m_pageSize);
    banner()->beginBusy();
    connection()->get(target, this, [this, path](const ApiResponse& r) {
        banner()->endBusy();
        if (path != directory())
            return; // another folder is shown now
        if (!r.ok())
            return showError(
                tr("Could not list %1: %2")
                    .arg(path.isEmpty() ? QStringLiteral("/") : path, r.errorMessage()));
        if (m_model->appendPage(DirectoryPage::fromJson(r.json()))) {
            // Inserted rows do not always re-fit the columns by themselves (as WorkspacesPage).
            QMetaObject::invokeMethod(m_table->horizontalHeader(), "resizeSections");
            Q_EMIT pageLoaded(path);
        }
        updateButtons();
    });
}

QString FilesPage::childPath(const QString& name) const {
    return directory().isEmpty() ? name : directory() + u'/' + name;
}

QStringList FilesPage::selectedPaths() const {
    QStringList paths;
    QModelIndexList rows = m_table->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(),
              [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
    for (const QModelIndex& i : rows)
        paths << childPath(m_model->entryAt(i.row()).name);
    return paths;
}

bool FilesPage::selectName(const QString& name) {
    for (int row = 0; row < m_model->rowCount(); ++row) {
        if (m_model->entryAt(row).name != name)
            continue;
        m_table->selectRow(row);
        return true;
    }
    return false;
}

void FilesPage::onSelectionChanged() {
    updateButtons();
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.size() != 1)
        return m_preview->clear();
    const FileEntry e = m_model->entryAt(rows.first().row());
    if (e.isDirectory())
        return m_preview->clear();
    m_preview->show(connection(), m_workspaceId, childPath(e.name), e);
}

void FilesPage::activateRow(int row) {
    const FileEntry e = m_model->entryAt(row);
    if (e.isDirectory())
        return openDirectory(childPath(e.name));
    // A link is never followed: the preview says where it points.
    m_preview->show(connection(), m_workspaceId, childPath(e.name), e);
}

QByteArray FilesPage::workspaceRoute(const char* verb) const {
    return "/v1/workspaces/" + QUrl::toPercentEncoding(m_workspaceId) + "/files:" + verb;
}

void FilesPage::makeDirectory(const QString& name) {
    if (!isConnected() || m_workspaceId.isEmpty() || name.isEmpty())
        return;
    const QString path = childPath(name);
    connection()->sendJson(
        "POST", workspaceRoute("mkdir"), {{"path", path}, {"parents", false}}, this,
        [this, path](const ApiResponse& r) {
            if (!r.ok()) {
                showError(tr("Could not make folder %1: %2").arg(path, r.errorMessage()));
            } else {
                clearMessages();
                showNotice(tr("Folder %1 made.").arg(path));
                openDirectory(directory());
            }
            Q_EMIT operationFinished(r.ok());
        });
}

void FilesPage::moveEntry(const QString& from, const QString& to) {
    if (!isConnected() || m_workspaceId.isEmpty() || from.isEmpty() || to.isEmpty())
        return;
    connection()->sendJson(
        "POST", workspaceRoute("move"), {{"from", from}, {"to", to}, {"overwrite", false}}, this,
        [this, from, to](const ApiResponse& r) {
            if (!r.ok()) {
                showError(tr("Could not move %1 to %2: %3").arg(from, to, r.errorMessage()));
            } else {
                clearMessages();
                showNotice(tr("%1 moved to %2.").arg(from, to));
                openDirectory(directory());
            }
            Q_EMIT operationFinished(r.ok());
        });
}

void FilesPage::deletePaths(const QStringList& paths) {
    if (!isConnected() || m_workspaceId.isEmpty() || paths.isEmpty())
        return;
    struct Batch {
        int pending = 0;
        int deleted = 0;
        QStringList refusals;
    };
    auto batch = std::make_shared<Batch>();
    batch->pending = int(paths.size());
    for (const QString& path : paths) {
        connection()->request(
            "DELETE", FileTransfer::route(m_workspaceId, path) + "?recursive=true", {}, this,
            [this, batch, path](const ApiResponse& r) {
                if (r.ok())
                    ++batch->deleted;
                else
                    batch->refusals << tr("%1: %2").arg(path, r.errorMessage());
                if (--batch->pending > 0)
                    return;
                clearMessages();
                if (!batch->refusals.isEmpty())
                    showError(tr("%n item(s) not deleted:", "", int(batch->refusals.size())) +
                              u'\n' + batch->refusals.join(u'\n'));
                showNotice(tr("%n item(s) deleted.", "", batch->deleted));
                openDirectory(directory());
                Q_EMIT operationFinished(batch->refusals.isEmpty());
            });
    }
}

FileTransfer* FilesPage::track(FileTransfer* transfer) {
    m_transfers->add(transfer);
    connect(transfer, &FileTransfer::finished, this, [this, transfer] {
        if (transfer->state() == FileTransfer::State::Failed)
            showError(tr("%1: %2").arg(transfer->remotePath(), transfer->errorText()));
        if (transfer->direction() == FileTransfer::Direction::Upload &&
            parentOf(transfer->remotePath()) == directory())
            openDirectory(directory());
        Q_EMIT transferFinished(transfer);
    });
    transfer->start();
    return transfer;
}

FileTransfer* FilesPage::uploadFile(const QString& localPath, bool overwrite) {
    if (!isConnected() || m_workspaceId.isEmpty())
        return nullptr;
    return track(FileTransfer::upload(connection()->client(), m_workspaceId, localPath,
                                      childPath(QFileInfo(localPath).fileName()), overwrite));
}

FileTransfer* FilesPage::downloadFile(const QString& remotePath, const QString& localPath) {
    if (!isConnected() || m_workspaceId.isEmpty())
        return nullptr;
    return track(
        FileTransfer::download(connection()->client(), m_workspaceId, remotePath, localPath));
}

void FilesPage::newFolder() {
    if (!isConnected() || m_workspaceId.isEmpty())
        return;
    auto* dialog = new QInputDialog(this);
    dialog->setObjectName(QStringLiteral("newFolderDialog"));
    dialog->setWindowTitle(tr("New folder"));
    dialog->setLabelText(tr("Name of the new folder in %1:")
                             .arg(directory().isEmpty() ? QStringLiteral("/") : directory()));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QInputDialog::textValueSelected, this, &FilesPage::makeDirectory);
    dialog->open();
}

void FilesPage::renameSelected() {
    const QStringList paths = selectedPaths();
    if (paths.size() != 1)
        return;
    auto* dialog = new QInputDialog(this);
    dialog->setObjectName(QStringLiteral("moveDialog"));
    dialog->setWindowTitle(tr("Rename or move"));
    dialog->setLabelText(tr("New path of %1 in the workspace:").arg(paths.first()));
    dialog->setTextValue(paths.first());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QInputDialog::textValueSelected, this,
            [this, from = paths.first()](const QString& to) { moveEntry(from, to); });
    dialog->open();
}

void FilesPage::deleteSelected() {
    const QStringList paths = selectedPaths();
    if (paths.isEmpty())
        return;
    const QString list =
        paths.size() <= 8 ? paths.join(u'\n') : paths.mid(0, 8).join(u'\n') + QStringLiteral("\n…");
    auto* box = new QMessageBox(
        QMessageBox::Question, tr("Delete files"),
        tr("Delete %n item(s)? Folders are deleted with everything in them. This cannot be "
           "undone.",
           "", int(paths.size())) +
            u'\n' + list,
        QMessageBox::Yes | QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("confirmDeleteFiles"));
    box->setDefaultButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, paths](int result) {
        if (result == QMessageBox::Yes)
            deletePaths(paths);
    });
    box->open(); // never a nested event loop
}

void FilesPage::chooseUpload() {
    if (!isConnected() || m_workspaceId.isEmpty())
        return;
    auto* dialog = new QFileDialog(this, tr("Upload a file"));
    dialog->setFileMode(QFileDialog::ExistingFile);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this,
            [this](const QString& file) { uploadFile(file); });
    dialog->open();
}

void FilesPage::chooseDownload() {
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.size() != 1)
        return;
    const FileEntry e = m_model->entryAt(rows.first().row());
    if (e.type != FileEntry::Type::File)
        return;
    auto* dialog = new QFileDialog(this, tr("Save %1 as").arg(e.name));
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->selectFile(QDir::home().filePath(e.name));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this,
            [this, path = childPath(e.name)](const QString& file) { downloadFile(path, file); });
    dialog->open();
}

void FilesPage::showError(const QString& message) {
    m_error->setText(message);
    m_error->setVisible(true);
    Q_EMIT statusMessage(message.section(u'\n', 0, 0), 10000);
}

void FilesPage::showNotice(const QString& message) {
    m_notice->setText(message);
    m_notice->setVisible(true);
    Q_EMIT statusMessage(message, 8000);
}

void FilesPage::clearMessages() {
    for (QLabel* l : {m_error, m_notice}) {
        l->clear();
        l->setVisible(false);
    }
}

QString FilesPage::errorText() const {
    return m_error->text();
}

QString FilesPage::noticeText() const {
    return m_notice->text();
}

void FilesPage::updateButtons() {
    const bool ready = isConnected() && !m_workspaceId.isEmpty();
    const QModelIndexList rows =
        ready ? m_table->selectionModel()->selectedRows() : QModelIndexList();
    const bool oneFile =
        rows.size() == 1 && m_model->entryAt(rows.first().row()).type == FileEntry::Type::File;
    m_up->setEnabled(ready && !directory().isEmpty());
    m_mkdir->setEnabled(ready);
    m_upload->setEnabled(ready);
    m_download->setEnabled(oneFile);
    m_rename->setEnabled(rows.size() == 1);
    m_delete->setEnabled(!rows.isEmpty());
}

} // namespace runbox::console
