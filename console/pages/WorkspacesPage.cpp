#include "console/pages/WorkspacesPage.h"

#include "console/api/ExecutionInfo.h"
#include "console/api/HealthReport.h"
#include "console/connection/AgentConnection.h"
#include "console/connection/WorkspaceUsageProbe.h"
#include "console/models/WorkspaceTableModel.h"
#include "console/pages/CreateWorkspaceDialog.h"
#include "console/widgets/HostBanner.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QUrl>
#include <QVBoxLayout>

#include <memory>

namespace runbox::console {

WorkspacesPage::WorkspacesPage(QWidget* parent)
    : AgentPage(tr("Workspaces"), QStringLiteral(":/icons/workspace.svg"), parent),
      m_model(new WorkspaceTableModel(this)), m_proxy(new QSortFilterProxyModel(this)),
      m_usageProbe(new WorkspaceUsageProbe(this)) {
    connect(m_usageProbe, &WorkspaceUsageProbe::measured, m_model, &WorkspaceTableModel::setUsage);
    auto* content = new QWidget;
    auto icon = [](const char* name) { return QIcon(QStringLiteral(":/icons/%1.svg").arg(name)); };
    m_new = new QPushButton(icon("add"), tr("&Create…"), content);
    m_delete = new QPushButton(icon("remove"), tr("&Delete…"), content);
    m_copy = new QPushButton(icon("paste"), tr("Copy &token"), content);
    m_files = new QPushButton(icon("log"), tr("Open &files"), content);
    m_files->setObjectName(QStringLiteral("openFiles"));
    m_files->setToolTip(tr("Browse the files of the selected workspace"));
    connect(m_files, &QPushButton::clicked, this, [this] {
        const QStringList ids = selectedWorkspaceIds();
        if (ids.size() == 1)
            Q_EMIT openFilesRequested(ids.first());
    });
    auto* refreshButton = new QPushButton(icon("refresh"), tr("Re&fresh"), content);
    m_new->setToolTip(tr("Create one strong workspace or a batch of light ones"));
    m_delete->setToolTip(tr("Delete the selected workspaces and their files"));
    m_copy->setToolTip(tr("Copy the scoped token of a workspace created in this session"));
    connect(m_new, &QPushButton::clicked, this, &WorkspacesPage::newWorkspaces);
    connect(m_delete, &QPushButton::clicked, this, &WorkspacesPage::deleteSelected);
    connect(m_copy, &QPushButton::clicked, this, &WorkspacesPage::copySelectedToken);
    connect(refreshButton, &QPushButton::clicked, this, &WorkspacesPage::refresh);
    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {m_new, m_delete, m_copy, m_files})
        buttons->addWidget(b);
    buttons->addStretch(1);
    buttons->addWidget(refreshButton);

    m_capacity = new QLabel(content);
    m_capacity->setObjectName(QStringLiteral("workspaceCapacity"));
    m_capacity->setWordWrap(true);
    m_notice = messageLabel("workspaceNotice", "palette(text)", content);
    m_error = messageLabel("workspaceError", "#c62828", content);
    auto* tokenNote = new QLabel(
        tr("The agent gives a workspace's scoped token only when it is created: the console "
           "keeps the tokens of the workspaces created here in memory for this session only and "
           "never writes them to disk."),
        content);
    tokenNote->setWordWrap(true);
    tokenNote->setStyleSheet(QStringLiteral("color: palette(dark);"));

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(WorkspaceTableModel::SortRole);
    m_table = new QTableView(content);
    m_table->setObjectName(QStringLiteral("workspaceTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(WorkspaceTableModel::CreatedColumn, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    for (int c = 0; c < WorkspaceTableModel::NotesColumn; ++c)
        m_table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &WorkspacesPage::updateButtons);

    auto* layout = new QVBoxLayout(content);
    layout->addLayout(buttons);
    layout->addWidget(m_capacity);
    layout->addWidget(m_notice);
    layout->addWidget(m_error);
    layout->addWidget(m_table, 1);
    layout->addWidget(tokenNote);
    setContent(content);
    updateButtons();
}

QString WorkspacesPage::profileId() const {
    return connection() ? connection()->profile().id : QString();
}

void WorkspacesPage::onConnectionChanged() {
    m_usageProbe->measure(nullptr, {});
    m_model->setWorkspaces({});
    m_model->forgetTokens();
    const QHash<QString, QString> kept = m_tokens.value(profileId());
    for (auto it = kept.cbegin(); it != kept.cend(); ++it)
        m_model->rememberToken(it.key(), it.value());
    for (QLabel* l : {m_error, m_notice}) {
        l->clear();
        l->setVisible(false);
    }
    updateCapacity();
    updateButtons();
    if (connection())
        connect(connection(), &AgentConnection::healthChanged, this,
                &WorkspacesPage::updateCapacity, Qt::UniqueConnection);
    if (isConnected())
        load();
}

void WorkspacesPage::refresh() {
    if (isConnected())
        load();
}

void WorkspacesPage::load() {
    m_loading = true;
    banner()->beginBusy();
    updateCapacity();
    connection()->get("/v1/workspaces", this, [this](const ApiResponse& r) {
        banner()->endBusy();
        m_loading = false;
        if (isRouteMissing(r))
            return showUnavailable(tr("workspaces"), QStringLiteral("GET /v1/workspaces"));
        if (!r.ok())
            return showPlaceholder(tr("Could not read the workspaces"), r.errorMessage(),
                                   QStringLiteral(":/icons/state-failed.svg"));
        m_model->setWorkspaces(WorkspaceInfo::listFromJson(r.json()));
        // Sizes are walks on the agent: measured after each listing, a few at a time.
        QStringList ids;
        for (const WorkspaceInfo& w : m_model->workspaces())
            ids << w.id;
        m_usageProbe->measure(connection(), ids);
        showContent();
        connection()->refreshHealth(); // the capacity line follows the list
        // Rows inserted through the sorting proxy do not always re-fit the columns by themselves.
        // (the header's own resizeSections() applies each section's mode, the stretch included).
        QMetaObject::invokeMethod(m_table->horizontalHeader(), "resizeSections");
        if (!m_selectAfterLoad.isEmpty()) {
            selectWorkspaces(m_selectAfterLoad);
            m_selectAfterLoad.clear();
        }
        updateButtons();
        Q_EMIT loaded();
    });
}

void WorkspacesPage::updateCapacity() {
    QStringList parts;
    const QJsonObject health = connection() ? connection()->health() : QJsonObject();
    const QJsonObject light = health.value(QLatin1String("light")).toObject();
    if (light.value(QLatin1String("available")).toBool() &&
        light.value(QLatin1String("capacity")).isDouble()) {
        const qint64 capacity = qint64(light.value(QLatin1String("capacity")).toDouble());
        const int used = light.value(QLatin1String("workspaces")).toInt();
        parts
            << (capacity > 0
                    ? tr("Light tier: %1 of %2 workspaces")
                          .arg(QString::number(used), QString::number(capacity))
                    : tr("Light tier: %1 workspaces, no capacity set").arg(QString::number(used)));
        if (light.value(QLatin1String("defaultIdleTimeoutS")).isDouble())
            parts << tr("idle light workspaces evicted after %1 s by default")
                         .arg(qint64(light.value(QLatin1String("defaultIdleTimeoutS")).toDouble()));
    } else if (light.contains(QLatin1String("available"))) {
        parts << tr("Light tier unavailable: %1")
                     .arg(light.value(QLatin1String("reason")).toString());
    }
    if (const QString pool = HealthReport(health).poolSummary(); !pool.isEmpty())
        parts << pool;
    m_capacity->setText(parts.join(QStringLiteral(" · ")));
    m_capacity->setVisible(!parts.isEmpty());
}

QStringList WorkspacesPage::selectedWorkspaceIds() const {
    QStringList ids;
    QModelIndexList rows = m_table->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(),
              [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
    for (const QModelIndex& i : rows)
        ids << i.data(WorkspaceTableModel::WorkspaceIdRole).toString();
    return ids;
}

void WorkspacesPage::selectWorkspaces(const QStringList& ids) {
    QItemSelection selection;
    for (const QString& id : ids) {
        const int row = m_model->rowOf(id);
        if (row < 0)
            continue;
        const QModelIndex i = m_proxy->mapFromSource(m_model->index(row, 0));
        selection.select(i, i);
    }
    m_table->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect |
                                                     QItemSelectionModel::Rows);
    if (!selection.isEmpty())
        m_table->scrollTo(selection.first().topLeft());
    updateButtons();
}

void WorkspacesPage::newWorkspaces() {
    if (!isConnected())
        return;
    auto* dialog = new CreateWorkspaceDialog(connection()->health(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this,
            [this, dialog] { createWorkspaces(dialog->requestBody()); });
    dialog->open();
}

void WorkspacesPage::createWorkspaces(const QJsonObject& body) {
    if (!isConnected())
        return;
    Q_EMIT statusMessage(tr("Creating workspaces…"), 0);
    connection()->sendJson(
        "POST", "/v1/workspaces", body, this, [this, profile = profileId()](const ApiResponse& r) {
            if (!r.ok())
                return showError(tr("Could not create workspaces: %1").arg(r.errorMessage()));
            const WorkspaceCreateResult result = WorkspaceCreateResult::fromJson(r.json());
            QStringList ids;
            for (const WorkspaceInfo& w : result.workspaces) {
                ids << w.id;
                if (profile == profileId())
                    m_model->rememberCreated(w);
                if (w.token.isEmpty())
                    continue;
                m_tokens[profile].insert(w.id, w.token);
                if (profile == profileId())
                    m_model->rememberToken(w.id, w.token);
            }
            m_error->setVisible(false);
            m_error->clear();
            QString notice = tr("%n workspace(s) created.", "", int(result.workspaces.size()));
            if (result.rejected > 0)
                notice += u' ' + tr("%n not made: the agent's capacity for them is used up "
                                    "(its light-workspace quota or its pool's capacity).",
                                    "", result.rejected);
            showNotice(notice);
            m_selectAfterLoad = ids;
            Q_EMIT created(int(result.workspaces.size()), result.rejected);
            load();
        });
}

void WorkspacesPage::deleteSelected() {
    const QStringList ids = selectedWorkspaceIds();
    if (ids.isEmpty())
        return;
    const QString list = ids.size() <= 8 ? ids.join(QStringLiteral(", "))
                                         : ids.mid(0, 8).join(QStringLiteral(", ")) + u'…';
    auto* box =
        new QMessageBox(QMessageBox::Question, tr("Delete workspaces"),
                        tr("Delete %n workspace(s) and every file in them? This cannot be undone.",
                           "", int(ids.size())) +
                            u'\n' + list,
                        QMessageBox::Yes | QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("confirmDeleteWorkspaces"));
    box->setDefaultButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, ids](int result) {
        if (result == QMessageBox::Yes)
            deleteWorkspaces(ids);
    });
    box->open(); // never a nested event loop
}

void WorkspacesPage::deleteWorkspaces(const QStringList& ids) {
    if (!isConnected() || ids.isEmpty())
        return;
    struct Batch {
        int pending = 0;
        int deleted = 0;
        QStringList refusals;
    };
    auto batch = std::make_shared<Batch>();
    batch->pending = int(ids.size());
    Q_EMIT statusMessage(tr("Deleting %n workspace(s)…", "", int(ids.size())), 0);
    for (const QString& id : ids) {
        connection()->request(
            "DELETE", "/v1/workspaces/" + QUrl::toPercentEncoding(id), {}, this,
            [this, batch, id](const ApiResponse& r) {
                if (r.ok())
                    ++batch->deleted;
                else
                    batch->refusals << tr("%1: %2").arg(id, r.errorMessage());
                if (--batch->pending > 0)
                    return;
                if (batch->refusals.isEmpty()) {
                    m_error->setVisible(false);
                    m_error->clear();
                } else {
                    showError(tr("%n workspace(s) not deleted:", "", int(batch->refusals.size())) +
                              u'\n' + batch->refusals.join(u'\n'));
                }
                showNotice(tr("%n workspace(s) deleted.", "", batch->deleted));
                Q_EMIT deleteFinished(batch->deleted, int(batch->refusals.size()));
                load();
            });
    }
}

bool WorkspacesPage::copySelectedToken() {
    const QStringList ids = selectedWorkspaceIds();
    const QString token = ids.isEmpty() ? QString() : m_model->tokenOf(ids.first());
    if (token.isEmpty()) {
        Q_EMIT statusMessage(tr("No token kept for this workspace: the agent gives it only "
                                "when the workspace is created."),
                             8000);
        return false;
    }
    QGuiApplication::clipboard()->setText(token);
    Q_EMIT statusMessage(tr("Token of %1 copied to the clipboard.").arg(ids.first()), 5000);
    return true;
}

void WorkspacesPage::showError(const QString& message) {
    m_error->setText(message);
    m_error->setVisible(true);
    Q_EMIT statusMessage(message.section(u'\n', 0, 0), 10000);
    Q_EMIT failed(message);
}

void WorkspacesPage::showNotice(const QString& message) {
    m_notice->setText(message);
    m_notice->setVisible(true);
    Q_EMIT statusMessage(message, 8000);
}

QString WorkspacesPage::errorText() const {
    return m_error->text();
}

QString WorkspacesPage::noticeText() const {
    return m_notice->text();
}

QString WorkspacesPage::capacityText() const {
    return m_capacity->text();
}

void WorkspacesPage::updateButtons() {
    const bool connected = isConnected();
    const QStringList ids = connected ? selectedWorkspaceIds() : QStringList();
    m_new->setEnabled(connected);
    m_delete->setEnabled(!ids.isEmpty());
    m_copy->setEnabled(ids.size() == 1 && !m_model->tokenOf(ids.first()).isEmpty());
    m_files->setEnabled(ids.size() == 1);
}

} // namespace runbox::console
