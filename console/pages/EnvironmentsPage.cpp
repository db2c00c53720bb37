#include "console/pages/EnvironmentsPage.h"

#include "console/api/ExecutionInfo.h"
#include "console/connection/AgentConnection.h"
#include "console/models/EnvironmentTableModel.h"
#include "console/widgets/HostBanner.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>

namespace runbox::console {

namespace {
constexpr int kPollMs = 2000;

QByteArray environmentPath(const QString& id, const char* suffix = "") {
    return "/v1/environments/" + QUrl::toPercentEncoding(id) + suffix;
}

QString timeText(const QDateTime& t) {
    return t.isValid() ? QLocale().toString(t.toLocalTime(), QLocale::ShortFormat) : QString();
}

QStringList rowsOf(const QTreeWidget* tree) {
    QStringList rows;
    for (int i = 0; i < tree->topLevelItemCount(); ++i) {
        QStringList cells;
        for (int c = 0; c < tree->columnCount(); ++c)
            cells << tree->topLevelItem(i)->text(c);
        rows << cells.join(u'\t');
    }
    return rows;
}
} // namespace

EnvironmentsPage::EnvironmentsPage(QWidget* parent)
    : AgentPage(tr("Environments"), QStringLiteral(":/icons/environment.svg"), parent),
      m_model(new EnvironmentTableModel(this)) {
    auto* content = new QWidget;
    auto icon = [](const char* name) { return QIcon(QStringLiteral(":/icons/%1.svg").arg(name)); };
    m_new = new QPushButton(icon("add"), tr("&New…"), content);
    m_install = new QPushButton(icon("add"), tr("&Install packages…"), content);
    m_uninstall = new QPushButton(icon("remove"), tr("&Uninstall packages…"), content);
    m_delete = new QPushButton(icon("remove"), tr("&Delete"), content);
    m_run = new QPushButton(icon("run"), tr("R&un in this environment…"), content);
    auto* refreshButton = new QPushButton(icon("refresh"), tr("Re&fresh"), content);
    m_new->setToolTip(tr("Create an environment (its first revision is a bare one)"));
    m_install->setToolTip(tr("Build a new revision with more packages"));
    m_uninstall->setToolTip(tr("Build a new revision without some packages"));
    m_delete->setToolTip(tr("Delete the environment and every revision of it"));
    connect(m_new, &QPushButton::clicked, this, &EnvironmentsPage::newEnvironment);
    connect(m_install, &QPushButton::clicked, this, &EnvironmentsPage::installPackages);
    connect(m_uninstall, &QPushButton::clicked, this, &EnvironmentsPage::uninstallPackages);
    connect(m_delete, &QPushButton::clicked, this, &EnvironmentsPage::deleteSelected);
    connect(m_run, &QPushButton::clicked, this,
            [this] { Q_EMIT runRequested(selectedEnvironmentId()); });
    connect(refreshButton, &QPushButton::clicked, this, &EnvironmentsPage::refresh);
    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {m_new, m_install, m_uninstall, m_delete})
        buttons->addWidget(b);
    buttons->addStretch(1);
    buttons->addWidget(m_run);
    buttons->addWidget(refreshButton);

    m_error = new QLabel(content);
    m_error->setObjectName(QStringLiteral("environmentError"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #c62828;"));
    m_error->setVisible(false);

    m_table = new QTableView(content);
    m_table->setObjectName(QStringLiteral("environmentTable"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    for (int c = 0; c < EnvironmentTableModel::FailureColumn; ++c)
        m_table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        updateButtons();
        loadRevisions();
    });

    m_revisions = new QTreeWidget(content);
    m_revisions->setObjectName(QStringLiteral("environmentRevisions"));
    m_revisions->setColumnCount(6);
    m_revisions->setHeaderLabels(
        {tr("#"), tr("Revision"), tr("Status"), tr("Packages"), tr("Built"), tr("Reason")});
    m_revisions->setRootIsDecorated(false);
    m_revisions->setAlternatingRowColors(true);
    connect(m_revisions, &QTreeWidget::currentItemChanged, this,
            &EnvironmentsPage::onRevisionSelected);
    m_snapshotTitle = new QLabel(content);
    m_snapshotTitle->setWordWrap(true);
    m_snapshotTitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_snapshot = new QTreeWidget(content);
    m_snapshot->setObjectName(QStringLiteral("environmentSnapshot"));
    m_snapshot->setColumnCount(2);
    m_snapshot->setHeaderLabels({tr("Package"), tr("Version")});
    m_snapshot->setRootIsDecorated(false);
    m_snapshot->setAlternatingRowColors(true);
    m_snapshot->setSortingEnabled(true);
    m_snapshot->sortByColumn(0, Qt::AscendingOrder);

    auto* revisionBox = new QWidget(content);
    auto* revisionLayout = new QVBoxLayout(revisionBox);
    revisionLayout->setContentsMargins(0, 0, 0, 0);
    revisionLayout->addWidget(new QLabel(tr("Revisions (newest first):"), revisionBox));
    revisionLayout->addWidget(m_revisions, 1);
    auto* snapshotBox = new QWidget(content);
    auto* snapshotLayout = new QVBoxLayout(snapshotBox);
    snapshotLayout->setContentsMargins(0, 0, 0, 0);
    snapshotLayout->addWidget(m_snapshotTitle);
    snapshotLayout->addWidget(m_snapshot, 1);
    auto* lower = new QSplitter(Qt::Horizontal, content);
    lower->addWidget(revisionBox);
    lower->addWidget(snapshotBox);
    lower->setStretchFactor(0, 3);
    lower->setStretchFactor(1, 2);
    auto* splitter = new QSplitter(Qt::Vertical, content);
    splitter->addWidget(m_table);
    splitter->addWidget(lower);

    auto* layout = new QVBoxLayout(content);
    layout->addLayout(buttons);
    layout->addWidget(m_error);
    layout->addWidget(splitter, 1);
    setContent(content);

    m_poll.setInterval(kPollMs);
    connect(&m_poll, &QTimer::timeout, this, [this] {
        if (isConnected() && !m_loading && m_model->anyBuilding())
            load();
    });
    m_poll.start();
    clearDetails();
    updateButtons();
}

void EnvironmentsPage::onConnectionChanged() {
    m_model->setEnvironments({});
    clearDetails();
    m_error->setVisible(false);
    m_error->clear();
    updateButtons();
    if (isConnected())
        load();
}

void EnvironmentsPage::refresh() {
    if (isConnected())
        load();
}

void EnvironmentsPage::load() {
    m_loading = true;
    banner()->beginBusy();
    connection()->get("/v1/environments", this, [this](const ApiResponse& r) {
        banner()->endBusy();
        m_loading = false;
        if (isRouteMissing(r))
            return showUnavailable(tr("science environments"),
                                   QStringLiteral("GET /v1/environments"));
        if (!r.ok())
            return showPlaceholder(tr("Could not read the environments"), r.errorMessage(),
                                   QStringLiteral(":/icons/state-failed.svg"));
        const QString selected =
            m_selectAfterLoad.isEmpty() ? selectedEnvironmentId() : m_selectAfterLoad;
        m_selectAfterLoad.clear();
        m_model->setEnvironments(EnvironmentInfo::listFromJson(r.json()));
        showContent();
        const int row = m_model->rowOf(selected);
        if (row >= 0 && m_table->currentIndex().row() != row)
            selectEnvironment(selected); // loads its revisions
        else if (row >= 0 && m_model->environmentAt(row).raw != m_shownEnvironment)
            loadRevisions(); // a build moved on
        else if (row < 0)
            clearDetails();
        updateButtons();
        Q_EMIT loaded();
    });
}

void EnvironmentsPage::selectEnvironment(const QString& id) {
    const int row = m_model->rowOf(id);
    if (row >= 0)
        m_table->setCurrentIndex(m_model->index(row, EnvironmentTableModel::NameColumn));
}

QString EnvironmentsPage::selectedEnvironmentId() const {
    const QModelIndex i = m_table->currentIndex();
    return i.isValid() ? m_model->environmentAt(i.row()).id : QString();
}

void EnvironmentsPage::clearDetails() {
    m_revisions->clear();
    m_revisionList.clear();
    m_snapshot->clear();
    m_snapshotRevision.clear();
    m_shownEnvironment = {};
    m_snapshotTitle->setText(tr("Select an environment to see its revisions and packages."));
}

void EnvironmentsPage::loadRevisions() {
    const EnvironmentInfo env = m_model->environmentAt(m_table->currentIndex().row());
    if (env.id.isEmpty() || !isConnected())
        return clearDetails();
    m_shownEnvironment = env.raw;
    connection()->get(
        environmentPath(env.id, "/revisions"), this, [this, id = env.id](const ApiResponse& r) {
            if (id != selectedEnvironmentId())
                return; // the selection moved on meanwhile
            if (!r.ok())
                return showError(tr("Could not read the revisions: %1").arg(r.errorMessage()));
            showRevisions(EnvironmentRevision::listFromJson(r.json()));
            Q_EMIT revisionsLoaded();
        });
}

void EnvironmentsPage::showRevisions(const QList<EnvironmentRevision>& revisions) {
    const EnvironmentInfo env = m_model->environmentAt(m_table->currentIndex().row());
    QString wanted = m_revisions->currentItem()
                         ? m_revisions->currentItem()->data(1, Qt::UserRole).toString()
                         : QString();
    bool wantedListed = false;
    for (const EnvironmentRevision& rev : revisions)
        wantedListed = wantedListed || rev.id == wanted;
    if (!wantedListed)
        wanted = env.currentRevisionId;
    const QSignalBlocker block(m_revisions);
    m_revisions->clear();
    m_revisionList = revisions;
    QTreeWidgetItem* current = nullptr;
    for (const EnvironmentRevision& rev : revisions) {
        QString status = EnvironmentInfo::statusLabel(rev.status);
        if (rev.id == env.currentRevisionId)
            status = tr("%1 (current)").arg(status);
        else if (rev.prefixRemovedAt.isValid())
            status = tr("%1 (files removed)").arg(status);
        auto* item = new QTreeWidgetItem(
            m_revisions, {QString::number(rev.seq), rev.id, status,
                          rev.packages.isEmpty() ? tr("(bare)") : rev.packages.join(u' '),
                          timeText(rev.finishedAt), rev.statusReason});
        item->setData(1, Qt::UserRole, rev.id);
        item->setIcon(2, QIcon(EnvironmentInfo::statusIcon(rev.status)));
        item->setToolTip(5, rev.statusReason);
        item->setToolTip(1, tr("Build execution: %1").arg(rev.executionId));
        if (rev.id == wanted || (!current && wanted.isEmpty()))
            current = item;
    }
    for (int c = 0; c < m_revisions->columnCount() - 1; ++c)
        m_revisions->resizeColumnToContents(c);
    if (!current && m_revisions->topLevelItemCount() > 0)
        current = m_revisions->topLevelItem(0);
    m_revisions->setCurrentItem(current);
    onRevisionSelected();
}

void EnvironmentsPage::onRevisionSelected() {
    QTreeWidgetItem* item = m_revisions->currentItem();
    const QString id = item ? item->data(1, Qt::UserRole).toString() : QString();
    EnvironmentRevision rev;
    for (const EnvironmentRevision& r : std::as_const(m_revisionList))
        if (r.id == id)
            rev = r;
    if (rev.id.isEmpty()) {
        m_snapshot->clear();
        m_snapshotRevision.clear();
        m_snapshotTitle->setText(tr("No revision yet."));
        return;
    }
    if (rev.status != QLatin1String("ready")) {
        m_snapshot->clear();
        m_snapshotRevision.clear();
        m_snapshotTitle->setText(
            rev.status == QLatin1String("building")
                ? tr("Revision %1 is building: its packages are listed once it is ready.")
                      .arg(rev.seq)
                : tr("Revision %1 failed and has no packages: %2")
                      .arg(QString::number(rev.seq), rev.statusReason));
        return;
    }
    if (id != m_snapshotRevision)
        loadSnapshot(id);
}

void EnvironmentsPage::loadSnapshot(const QString& revisionId) {
    m_snapshotTitle->setText(tr("Reading the packages of %1…").arg(revisionId));
    connection()->get(
        "/v1/environment-revisions/" + QUrl::toPercentEncoding(revisionId) + "/snapshot", this,
        [this, revisionId](const ApiResponse& r) {
            QTreeWidgetItem* item = m_revisions->currentItem();
            if (!item || item->data(1, Qt::UserRole).toString() != revisionId)
                return;
            m_snapshot->clear();
            if (!r.ok()) {
                m_snapshotRevision.clear();
                m_snapshotTitle->setText(
                    tr("Could not read the packages: %1").arg(r.errorMessage()));
                return;
            }
            const PackageSnapshot s = PackageSnapshot::fromJson(r.json());
            m_snapshotRevision = revisionId;
            for (const auto& [name, version] : s.packages)
                new QTreeWidgetItem(m_snapshot, {name, version});
            m_snapshot->resizeColumnToContents(0);
            m_snapshotTitle->setText(
                tr("Packages of %1 (%2 in all), SHA-256 %3")
                    .arg(revisionId, QString::number(s.packages.size()), s.sha256.left(16)));
            m_snapshotTitle->setToolTip(s.sha256);
            Q_EMIT snapshotLoaded();
        });
}

void EnvironmentsPage::newEnvironment() {
    if (!isConnected())
        return;
    auto* dialog = new NewEnvironmentDialog(connection()->health(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this,
            [this, dialog] { createEnvironment(dialog->name(), dialog->language()); });
    dialog->open();
}

void EnvironmentsPage::installPackages() {
    const EnvironmentInfo env = m_model->environmentAt(m_table->currentIndex().row());
    if (env.id.isEmpty())
        return;
    auto* dialog = new PackagesDialog(PackagesDialog::Mode::Install, env.name, {}, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog, id = env.id] {
        changePackages(id, PackagesDialog::Mode::Install, dialog->packages());
    });
    dialog->open();
}

void EnvironmentsPage::uninstallPackages() {
    const EnvironmentInfo env = m_model->environmentAt(m_table->currentIndex().row());
    if (env.id.isEmpty())
        return;
    QStringList installed;
    for (const EnvironmentRevision& r : std::as_const(m_revisionList))
        if (r.id == env.currentRevisionId)
            installed = r.packages;
    auto* dialog = new PackagesDialog(PackagesDialog::Mode::Uninstall, env.name, installed, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog, id = env.id] {
        changePackages(id, PackagesDialog::Mode::Uninstall, dialog->packages());
    });
    dialog->open();
}

void EnvironmentsPage::deleteSelected() {
    const EnvironmentInfo env = m_model->environmentAt(m_table->currentIndex().row());
    if (env.id.isEmpty())
        return;
    auto* box = new QMessageBox(
        QMessageBox::Question, tr("Delete environment"),
        tr("Delete the environment %1 (%2) and all %3 of its revisions? Executions can no "
           "longer use it.")
            .arg(env.name, env.id, QString::number(env.revisionCount)),
        QMessageBox::Yes | QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("confirmDeleteEnvironment"));
    box->setDefaultButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, id = env.id](int result) {
        if (result == QMessageBox::Yes)
            deleteEnvironment(id);
    });
    box->open(); // never a nested event loop
}

void EnvironmentsPage::createEnvironment(const QString& name, const QString& language) {
    if (!isConnected())
        return;
    Q_EMIT statusMessage(tr("Creating the environment %1…").arg(name), 0);
    connection()->sendJson(
        "POST", "/v1/environments", QJsonObject{{"name", name}, {"language", language}}, this,
        [this, name](const ApiResponse& r) {
            if (!r.ok())
                return showError(tr("Could not create %1: %2").arg(name, r.errorMessage()));
            started(EnvironmentBuild::fromJson(r.json()));
        });
}

void EnvironmentsPage::changePackages(const QString& environmentId, PackagesDialog::Mode mode,
                                      const QStringList& packages) {
    if (!isConnected() || environmentId.isEmpty())
        return;
    const bool install = mode == PackagesDialog::Mode::Install;
    QJsonArray list;
    for (const QString& p : packages)
        list.append(p);
    connection()->sendJson(
        "POST", environmentPath(environmentId, install ? "/install" : "/uninstall"),
        QJsonObject{{"packages", list}}, this, [this, install](const ApiResponse& r) {
            if (!install && isRouteMissing(r))
                return showError(tr("This agent cannot uninstall packages yet (%1 is not there).")
                                     .arg(QStringLiteral("POST /v1/environments/{id}/uninstall")));
            if (!r.ok())
                return showError(install ? tr("Could not install: %1").arg(r.errorMessage())
                                         : tr("Could not uninstall: %1").arg(r.errorMessage()));
            started(EnvironmentBuild::fromJson(r.json()));
        });
}

void EnvironmentsPage::started(const EnvironmentBuild& build) {
    m_error->setVisible(false);
    m_error->clear();
    m_selectAfterLoad = build.environmentId;
    Q_EMIT statusMessage(tr("Building a new revision of %1 (execution %2)…")
                             .arg(build.environmentId, build.executionId),
                         8000);
    if (!build.executionId.isEmpty())
        Q_EMIT buildStarted(build.executionId);
    load();
}

void EnvironmentsPage::deleteEnvironment(const QString& environmentId) {
    if (!isConnected() || environmentId.isEmpty())
        return;
    connection()->request(
        "DELETE", environmentPath(environmentId), {}, this,
        [this, environmentId](const ApiResponse& r) {
            if (!r.ok())
                return showError(
                    tr("Could not delete %1: %2").arg(environmentId, r.errorMessage()));
            m_error->setVisible(false);
            m_error->clear();
            Q_EMIT statusMessage(tr("Environment %1 deleted.").arg(environmentId), 5000);
            load();
        });
}

void EnvironmentsPage::showError(const QString& message) {
    m_error->setText(message);
    m_error->setVisible(true);
    Q_EMIT statusMessage(message, 10000);
    Q_EMIT failed(message);
}

QString EnvironmentsPage::errorText() const {
    return m_error->text();
}

QStringList EnvironmentsPage::revisionRows() const {
    return rowsOf(m_revisions);
}

QStringList EnvironmentsPage::snapshotRows() const {
    return rowsOf(m_snapshot);
}

void EnvironmentsPage::updateButtons() {
    const EnvironmentInfo env = m_model->environmentAt(m_table->currentIndex().row());
    const bool connected = isConnected();
    const bool selected = connected && !env.id.isEmpty();
    m_new->setEnabled(connected);
    m_install->setEnabled(selected);
    m_uninstall->setEnabled(selected);
    m_delete->setEnabled(selected);
    m_run->setEnabled(selected && env.isUsable());
}

} // namespace runbox::console
