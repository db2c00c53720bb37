#include "console/pages/RunDialog.h"

#include "console/api/EnvironmentInfo.h"
#include "console/api/ExecutionInfo.h"
#include "console/api/HealthReport.h"
#include "console/connection/AgentConnection.h"
#include "console/models/EnvTableModel.h"
#include "console/widgets/HostBanner.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

namespace runbox::console {

namespace {
constexpr int kIsolationRole = Qt::UserRole + 1;
/// A light workspace's science environment (its create answer's `environmentId`; "" = none).
constexpr int kEnvironmentRole = Qt::UserRole + 2;

QString templateFor(const QString& kind) {
    if (kind == QLatin1String("python"))
        return QStringLiteral("import sys\nprint(\"hello from\", sys.version.split()[0])\n");
    if (kind == QLatin1String("r"))
        return QStringLiteral("cat(\"hello from\", R.version.string, \"\\n\")\n");
    return QStringLiteral("echo \"hello from $(uname -sr)\"\n");
}
} // namespace

RunDialog::RunDialog(AgentConnection* connection, QWidget* parent)
    : QDialog(parent), m_connection(connection), m_workspace(new QComboBox(this)),
      m_kind(new QComboBox(this)), m_environment(new QComboBox(this)),
      m_code(new QPlainTextEdit(this)), m_cwd(new QLineEdit(this)), m_env(new EnvTableModel(this)),
      m_envView(new QTableView(this)), m_timeout(new QSpinBox(this)), m_chips(new QLineEdit(this)),
      m_problems(new QLabel(this)) {
    setWindowTitle(tr("Run"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/run.svg")));
    auto* banner = new HostBanner(tr("New run"), QStringLiteral(":/icons/run.svg"), this);
    banner->setConnection(connection);

    m_workspace->setObjectName(QStringLiteral("runWorkspace"));
    m_workspace->addItem(QIcon(QStringLiteral(":/icons/add.svg")), tr("New strong workspace"),
                         QString());
    m_kind->setObjectName(QStringLiteral("runKind"));
    m_kind->addItem(tr("Shell (bash)"), QStringLiteral("shell"));
    m_kind->addItem(tr("Python"), QStringLiteral("python"));
    m_kind->addItem(tr("R"), QStringLiteral("r"));
    const QStringList languages =
        connection ? HealthReport(connection->health()).languages() : QStringList();
    if (!languages.isEmpty()) {
        auto* model = qobject_cast<QStandardItemModel*>(m_kind->model());
        for (int i = 0; i < m_kind->count(); ++i)
            if (!languages.contains(m_kind->itemData(i).toString()) && model) {
                model->item(i)->setEnabled(false);
                model->item(i)->setToolTip(tr("Not installed on this host"));
            }
    }
    m_environment->setObjectName(QStringLiteral("runEnvironment"));
    m_environment->addItem(tr("None (the host's interpreters)"), QString());
    m_environment->setToolTip(tr("A science environment from the Environments page: the run "
                                 "sees its packages at /opt/science-env (strong workspaces)"));
    m_code->setObjectName(QStringLiteral("runCode"));
    m_code->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_code->setTabStopDistance(m_code->fontMetrics().horizontalAdvance(u' ') * 4);
    m_code->setMinimumHeight(180);
    m_code->setPlainText(templateFor(QStringLiteral("shell")));
    m_cwd->setPlaceholderText(tr("workspace root"));
    m_timeout->setRange(0, 365 * 24 * 3600);
    m_timeout->setSuffix(tr(" s"));
    m_timeout->setSpecialValueText(tr("agent default"));
    m_chips->setObjectName(QStringLiteral("runChips"));
    m_chips->setPlaceholderText(tr("none (e.g. 2, 5)"));

    m_envView->setModel(m_env);
    m_envView->horizontalHeader()->setStretchLastSection(true);
    m_envView->verticalHeader()->setVisible(false);
    m_envView->setMinimumHeight(90);
    m_envView->setMaximumHeight(140);
    auto* addEnv = new QPushButton(QIcon(QStringLiteral(":/icons/add.svg")), QString(), this);
    addEnv->setToolTip(tr("Add a variable"));
    auto* removeEnv = new QPushButton(QIcon(QStringLiteral(":/icons/remove.svg")), QString(), this);
    removeEnv->setToolTip(tr("Remove the selected variable"));
    for (QPushButton* b : {addEnv, removeEnv})
        b->setAutoDefault(false);
    connect(addEnv, &QPushButton::clicked, this, [this] {
        const int row = m_env->rowCount();
        m_env->insertRow(row);
        m_envView->edit(m_env->index(row, EnvTableModel::NameColumn));
    });
    connect(removeEnv, &QPushButton::clicked, this, [this] {
        const QModelIndex i = m_envView->currentIndex();
        if (i.isValid())
            m_env->removeRow(i.row());
    });
    auto* envButtons = new QVBoxLayout;
    envButtons->addWidget(addEnv);
    envButtons->addWidget(removeEnv);
    envButtons->addStretch(1);
    auto* envRow = new QHBoxLayout;
    envRow->addWidget(m_envView, 1);
    envRow->addLayout(envButtons);

    auto* form = new QFormLayout;
    form->addRow(tr("&Workspace:"), m_workspace);
    form->addRow(tr("&Kind:"), m_kind);
    form->addRow(tr("Science en&vironment:"), m_environment);
    form->addRow(tr("&Script:"), m_code);
    form->addRow(tr("Working &directory:"), m_cwd);
    auto* envLabel = new QLabel(tr("&Environment:"), this);
    envLabel->setBuddy(m_envView);
    form->addRow(envLabel, envRow);
    form->addRow(tr("&Timeout:"), m_timeout);
    form->addRow(tr("NPU &chips:"), m_chips);

    m_problems->setWordWrap(true);
    m_problems->setStyleSheet(QStringLiteral("color: #c62828;"));
    auto* box = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_run = box->addButton(tr("&Run"), QDialogButtonBox::AcceptRole);
    m_run->setIcon(QIcon(QStringLiteral(":/icons/run.svg")));
    m_run->setDefault(true);
    connect(box, &QDialogButtonBox::accepted, this, [this] {
        if (problems().isEmpty())
            accept();
    });
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(banner);
    layout->addLayout(form, 1);
    layout->addWidget(m_problems);
    layout->addWidget(box);
    resize(720, 640);

    connect(m_kind, &QComboBox::currentIndexChanged, this, &RunDialog::onKindChanged);
    connect(m_code, &QPlainTextEdit::textChanged, this, [this] {
        m_codeEdited = true;
        updateState();
    });
    connect(m_cwd, &QLineEdit::textChanged, this, &RunDialog::updateState);
    connect(m_chips, &QLineEdit::textChanged, this, &RunDialog::updateState);
    connect(m_environment, &QComboBox::currentIndexChanged, this, &RunDialog::updateState);
    connect(m_workspace, &QComboBox::currentIndexChanged, this, &RunDialog::onWorkspaceChanged);
    connect(m_env, &EnvTableModel::dataChanged, this, &RunDialog::updateState);
    connect(m_env, &EnvTableModel::rowsRemoved, this, &RunDialog::updateState);
    m_codeEdited = false;
    loadWorkspaces();
    loadEnvironments();
    updateState();
}

void RunDialog::loadWorkspaces() {
    if (!m_connection)
        return;
    m_connection->get("/v1/workspaces", this, [this](const ApiResponse& r) {
        if (!r.ok())
            return;
        const QString wanted = m_workspace->currentData().toString();
        for (const QJsonValue& v : r.json().value(QLatin1String("workspaces")).toArray()) {
            const QJsonObject w = v.toObject();
            const QString id = w.value(QLatin1String("id")).toString();
            // An environment's build workspace is the agent's: nothing to run there.
            if (w.contains(QLatin1String("environmentBuild")))
                continue;
            if (m_workspace->findData(id) < 0) {
                m_workspace->addItem(QIcon(QStringLiteral(":/icons/workspace.svg")),
                                     tr("%1 (%2)").arg(id, w.value("isolation").toString()), id);
                m_workspace->setItemData(m_workspace->count() - 1, w.value("isolation").toString(),
                                         kIsolationRole);
                m_workspace->setItemData(m_workspace->count() - 1,
                                         w.value("environmentId").toString(), kEnvironmentRole);
            }
        }
        const int i = m_workspace->findData(wanted);
        if (i >= 0)
            m_workspace->setCurrentIndex(i);
    });
}

void RunDialog::loadEnvironments() {
    if (!m_connection)
        return;
    m_connection->get("/v1/environments", this, [this](const ApiResponse& r) {
        if (isRouteMissing(r) || !r.ok()) {
            m_environment->setToolTip(isRouteMissing(r)
                                          ? tr("This agent has no science environments yet.")
                                          : r.errorMessage());
            return;
        }
        auto* model = qobject_cast<QStandardItemModel*>(m_environment->model());
        for (const EnvironmentInfo& e : EnvironmentInfo::listFromJson(r.json())) {
            if (m_environment->findData(e.id) >= 0)
                continue;
            m_environment->addItem(QIcon(QStringLiteral(":/icons/environment.svg")),
                                   tr("%1 (%2, %3)")
                                       .arg(e.name, EnvironmentInfo::languageLabel(e.language),
                                            e.isUsable() ? e.currentRevisionId
                                                         : EnvironmentInfo::statusLabel(e.status)),
                                   e.id);
            if (!e.isUsable() && model) {
                model->item(m_environment->count() - 1)->setEnabled(false);
                model->item(m_environment->count() - 1)
                    ->setToolTip(tr("No ready revision yet (%1)")
                                     .arg(EnvironmentInfo::statusLabel(e.status)));
            }
        }
        if (!m_wantedEnvironment.isEmpty())
            setEnvironment(m_wantedEnvironment);
    });
}

void RunDialog::setEnvironment(const QString& environmentId) {
    m_wantedEnvironment = environmentId;
    const int i = m_environment->findData(environmentId);
    if (i >= 0)
        m_environment->setCurrentIndex(i);
}

QStringList RunDialog::environmentChoices() const {
    QStringList ids;
    for (int i = 0; i < m_environment->count(); ++i)
        ids << m_environment->itemData(i).toString();
    return ids;
}

void RunDialog::onKindChanged() {
    if (!m_codeEdited) {
        const QSignalBlocker block(m_code);
        m_code->setPlainText(templateFor(m_kind->currentData().toString()));
    }
    updateState();
}

AgentConnection* RunDialog::connection() const {
    return m_connection;
}

RunRequest RunDialog::request() const {
    RunRequest r;
    r.workspaceId = m_workspace->currentData().toString();
    r.kind = m_kind->currentData().toString();
    r.environmentId = m_environment->currentData().toString();
    r.code = m_code->toPlainText();
    r.cwd = m_cwd->text().trimmed();
    r.env = m_env->variables();
    r.timeoutMs = qint64(m_timeout->value()) * 1000;
    bool ok = false;
    r.npuDevices = RunRequest::parseChipList(m_chips->text(), &ok);
    return r;
}

QStringList RunDialog::problems() const {
    QStringList out = request().validate();
    bool ok = false;
    RunRequest::parseChipList(m_chips->text(), &ok);
    if (!ok)
        out << tr("Chips are logic ids separated by commas, e.g. 2, 5.");
    // A light workspace runs the environment it was created with, and no other
    // (docs/environments.md "Selection"; the agent answers 409 environment_mismatch).
    if (m_workspace->currentData(kIsolationRole).toString() == QLatin1String("light")) {
        const QString own = m_workspace->currentData(kEnvironmentRole).toString();
        const QString chosen = m_environment->currentData().toString();
        if (own.isEmpty() && !chosen.isEmpty())
            out << tr("This light workspace was created without a science environment: choose "
                      "none, or a strong or new workspace (a light workspace gets its "
                      "environment when it is created).");
        else if (!own.isEmpty() && chosen != own)
            out << tr("This light workspace runs the science environment it was created with "
                      "(%1): choose that one.")
                       .arg(own);
    }
    return out;
}

void RunDialog::onWorkspaceChanged() {
    // A light workspace's own environment is its only choice: chosen for the user.
    const QString own = m_workspace->currentData(kEnvironmentRole).toString();
    if (m_workspace->currentData(kIsolationRole).toString() == QLatin1String("light") &&
        !own.isEmpty())
        setEnvironment(own);
    updateState();
}

void RunDialog::updateState() {
    const QStringList p = problems();
    m_problems->setText(p.join(u'\n'));
    m_problems->setVisible(!p.isEmpty());
    m_run->setEnabled(p.isEmpty());
}

void RunDialog::setChips(const QList<int>& chips) {
    QStringList parts;
    for (int c : chips)
        parts << QString::number(c);
    m_chips->setText(parts.join(QStringLiteral(", ")));
}

void RunDialog::setKind(const QString& kind) {
    const int i = m_kind->findData(kind);
    if (i >= 0)
        m_kind->setCurrentIndex(i);
}

void RunDialog::setScript(const QString& code) {
    m_code->setPlainText(code);
}

void RunDialog::setWorkspace(const QString& workspaceId) {
    int i = m_workspace->findData(workspaceId);
    if (i < 0) {
        m_workspace->addItem(workspaceId, workspaceId);
        i = m_workspace->count() - 1;
    }
    m_workspace->setCurrentIndex(i);
}

} // namespace runbox::console
