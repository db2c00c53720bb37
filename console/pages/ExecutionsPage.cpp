#include "console/pages/ExecutionsPage.h"

#include "console/connection/AgentConnection.h"
#include "console/core/ConsoleSettings.h"
#include "console/models/ExecutionTableModel.h"
#include "console/widgets/HostBanner.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIcon>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QUrl>
#include <QUrlQuery>
#include <QVBoxLayout>

namespace runbox::console {

namespace {
constexpr int kPageSize = 50;
constexpr int kLiveIntervalMs = 3000;
const QString kTableKey = QStringLiteral("executions");
} // namespace

ExecutionsPage::ExecutionsPage(ConsoleSettings* settings, QWidget* parent)
    : AgentPage(tr("Executions"), QStringLiteral(":/icons/executions.svg"), parent),
      m_settings(settings), m_model(new ExecutionTableModel(this)),
      m_proxy(new QSortFilterProxyModel(this)) {
    auto* content = new QWidget;
    m_state = new QComboBox(content);
    m_state->addItem(tr("All states"), QString());
    for (const QString& s : ExecutionInfo::allStates())
        m_state->addItem(QIcon(ExecutionInfo::stateIcon(s)), ExecutionInfo::stateLabel(s), s);
    m_workspace = new QComboBox(content);
    m_workspace->addItem(tr("All workspaces"), QString());
    m_workspace->setMinimumContentsLength(18);
    m_text = new QLineEdit(content);
    m_text->setObjectName(QStringLiteral("executionFilter"));
    m_text->setPlaceholderText(tr("Filter by id, workspace or kind (Ctrl+F)"));
    m_text->setClearButtonEnabled(true);
    m_live = new QCheckBox(tr("&Live"), content);
    m_live->setToolTip(tr("Refresh the newest executions every few seconds"));
    auto* run = new QPushButton(QIcon(QStringLiteral(":/icons/run.svg")), tr("&Run…"), content);
    connect(run, &QPushButton::clicked, this, &ExecutionsPage::runRequested);

    auto* filters = new QHBoxLayout;
    filters->addWidget(new QLabel(tr("State:"), content));
    filters->addWidget(m_state);
    filters->addWidget(new QLabel(tr("Workspace:"), content));
    filters->addWidget(m_workspace);
    filters->addWidget(m_text, 1);
    filters->addWidget(m_live);
    filters->addWidget(run);

    m_proxy->setSourceModel(m_model);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterKeyColumn(-1);
    m_table = new QTableView(content);
    m_table->setObjectName(QStringLiteral("executionTable"));
    m_table->setModel(m_proxy);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->setSortingEnabled(false);
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 10);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionsMovable(true);
    m_table->setWordWrap(false);
    const QFontMetrics fm = m_table->fontMetrics();
    const int idWidth = fm.horizontalAdvance(QStringLiteral("ex_0123456789abcdef0123")) + 16;
    m_table->setColumnWidth(ExecutionTableModel::IdColumn, idWidth);
    m_table->setColumnWidth(ExecutionTableModel::WorkspaceColumn,
                            fm.horizontalAdvance(QStringLiteral("w0123456789abcdef")) + 16);
    m_table->setColumnWidth(ExecutionTableModel::KindColumn, fm.horizontalAdvance(u'm') * 6);
    m_table->setColumnWidth(ExecutionTableModel::StateColumn, fm.horizontalAdvance(u'm') * 11);
    m_table->setColumnWidth(ExecutionTableModel::StartedColumn, fm.horizontalAdvance(u'm') * 11);
    m_table->setColumnWidth(ExecutionTableModel::DurationColumn, fm.horizontalAdvance(u'm') * 7);
    m_table->setColumnWidth(ExecutionTableModel::ExitCodeColumn, fm.horizontalAdvance(u'm') * 6);
    if (m_settings)
        m_table->horizontalHeader()->restoreState(m_settings->tableState(kTableKey));
    connect(m_table, &QTableView::activated, this, &ExecutionsPage::openRow);

    m_status = new QLabel(content);
    m_status->setStyleSheet(QStringLiteral("color: palette(dark);"));

    auto* layout = new QVBoxLayout(content);
    layout->addLayout(filters);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_status);
    setContent(content);

    connect(m_state, &QComboBox::currentIndexChanged, this, &ExecutionsPage::installFetcher);
    connect(m_workspace, &QComboBox::currentIndexChanged, this, &ExecutionsPage::installFetcher);
    connect(m_text, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    connect(m_model, &ExecutionTableModel::loadingChanged, this, &ExecutionsPage::updateStatus);
    connect(m_model, &ExecutionTableModel::pageLoaded, this, &ExecutionsPage::updateStatus);
    connect(m_model, &ExecutionTableModel::loadFailed, this,
            [this](const QString& message, bool routeMissing) {
                if (routeMissing)
                    showUnavailable(tr("managed executions"), QStringLiteral("GET /v1/executions"));
                else
                    m_status->setText(tr("Could not load executions: %1").arg(message));
            });
    connect(m_model, &ExecutionTableModel::pageLoaded, this, [this] {
        if (!isUnavailableShown())
            showContent();
    });

    m_liveTimer.setInterval(kLiveIntervalMs);
    connect(&m_liveTimer, &QTimer::timeout, m_model, &ExecutionTableModel::refreshHead);
    connect(m_live, &QCheckBox::toggled, this, [this](bool on) {
        if (m_settings)
            m_settings->setValue(ConsoleSettings::Key::LiveRefresh, on);
        if (on && isConnected())
            m_liveTimer.start();
        else
            m_liveTimer.stop();
    });
    m_live->setChecked(!m_settings ||
                       m_settings->value(ConsoleSettings::Key::LiveRefresh).toBool());
}

ExecutionsPage::~ExecutionsPage() {
    if (m_settings)
        m_settings->setTableState(kTableKey, m_table->horizontalHeader()->saveState());
}

void ExecutionsPage::onConnectionChanged() {
    m_liveTimer.stop();
    if (!isConnected()) {
        m_model->setFetcher(nullptr);
        return;
    }
    loadWorkspaces();
    installFetcher();
    if (m_live->isChecked())
        m_liveTimer.start();
}

void ExecutionsPage::refresh() {
    if (!isConnected())
        return;
    loadWorkspaces();
    m_model->reload();
}

void ExecutionsPage::focusFind() {
    m_text->setFocus();
    m_text->selectAll();
}

void ExecutionsPage::installFetcher() {
    const QPointer<AgentConnection> conn = connection();
    if (!conn || !isConnected())
        return;
    const QString state = m_state->currentData().toString();
    const QString workspace = m_workspace->currentData().toString();
    const QPointer<ExecutionsPage> self(this);
    m_model->setFetcher([conn, state, workspace, self](const QString& cursor, auto done) {
        if (!conn || !self)
            return done({{}, {}, ExecutionsPage::tr("not connected"), false});
        QUrlQuery q;
        q.addQueryItem(QStringLiteral("limit"), QString::number(kPageSize));
        if (!state.isEmpty())
            q.addQueryItem(QStringLiteral("state"), state);
        if (!workspace.isEmpty())
            q.addQueryItem(QStringLiteral("workspace"), workspace);
        if (!cursor.isEmpty())
            q.addQueryItem(QStringLiteral("cursor"),
                           QString::fromLatin1(QUrl::toPercentEncoding(cursor)));
        self->banner()->beginBusy();
        conn->get("/v1/executions?" + q.query(QUrl::FullyEncoded).toLatin1(), self,
                  [self, done](const ApiResponse& r) {
                      self->banner()->endBusy();
                      ExecutionTableModel::Page page;
                      if (isRouteMissing(r)) {
                          page.routeMissing = true;
                      } else if (!r.ok()) {
                          page.error = r.errorMessage();
                      } else {
                          const QJsonObject o = r.json();
                          for (const QJsonValue& v : o.value(QLatin1String("executions")).toArray())
                              page.items.append(ExecutionInfo::fromJson(v.toObject()));
                          page.nextCursor = o.value(QLatin1String("nextCursor")).toString();
                      }
                      done(page);
                  });
    });
}

void ExecutionsPage::loadWorkspaces() {
    connection()->get("/v1/workspaces", this, [this](const ApiResponse& r) {
        if (!r.ok())
            return;
        const QString current = m_workspace->currentData().toString();
        const QSignalBlocker block(m_workspace);
        while (m_workspace->count() > 1)
            m_workspace->removeItem(1);
        for (const QJsonValue& v : r.json().value(QLatin1String("workspaces")).toArray()) {
            const QString id = v.toObject().value(QLatin1String("id")).toString();
            m_workspace->addItem(QIcon(QStringLiteral(":/icons/workspace.svg")), id, id);
        }
        const int index = m_workspace->findData(current);
        m_workspace->setCurrentIndex(index < 0 ? 0 : index);
    });
}

void ExecutionsPage::updateStatus() {
    const int n = m_model->rowCount();
    QString text = tr("%n execution(s) loaded", nullptr, n);
    if (m_model->isLoading())
        text += tr(" · loading…");
    else if (m_model->canFetchMore({}))
        text += tr(" · scroll down for older ones");
    m_status->setText(text);
}

void ExecutionsPage::openRow(const QModelIndex& proxyIndex) {
    const QModelIndex source = m_proxy->mapToSource(proxyIndex);
    if (source.isValid())
        Q_EMIT openExecution(m_model->executionAt(source.row()));
}

void ExecutionsPage::setStateFilter(const QString& state) {
    const int i = m_state->findData(state);
    m_state->setCurrentIndex(i < 0 ? 0 : i);
}

void ExecutionsPage::setWorkspaceFilter(const QString& workspaceId) {
    int i = m_workspace->findData(workspaceId);
    if (i < 0 && !workspaceId.isEmpty()) {
        m_workspace->addItem(workspaceId, workspaceId);
        i = m_workspace->count() - 1;
    }
    m_workspace->setCurrentIndex(i < 0 ? 0 : i);
}

void ExecutionsPage::setTextFilter(const QString& text) {
    m_text->setText(text);
}

void ExecutionsPage::setLiveRefresh(bool on) {
    m_live->setChecked(on);
}

} // namespace runbox::console
