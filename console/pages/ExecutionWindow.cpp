#include "console/pages/ExecutionWindow.h"

#include "console/api/HealthReport.h"
#include "console/connection/AgentConnection.h"
#include "console/connection/ExecutionFollower.h"
#include "console/connection/LogDownloader.h"
#include "console/core/ConsoleSettings.h"
#include "console/widgets/HostBanner.h"
#include "console/widgets/LogView.h"

#include <QAction>
#include <QCloseEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QProgressDialog>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>

namespace runbox::console {

namespace {
QString timeText(const QDateTime& t) {
    return t.isValid() ? QLocale().toString(t.toLocalTime(), QLocale::LongFormat) : QString();
}

QString jsonText(const QJsonValue& v) {
    if (v.isString())
        return v.toString();
    if (v.isDouble())
        return QLocale().toString(qint64(v.toDouble()));
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (v.isNull() || v.isUndefined())
        return QStringLiteral("—");
    if (v.isArray()) {
        QStringList parts;
        for (const QJsonValue& e : v.toArray())
            parts << jsonText(e);
        return parts.join(QStringLiteral(", "));
    }
    return {};
}

void addObject(QTreeWidgetItem* parent, const QJsonObject& o, const QString& prefix = {}) {
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (it.value().isObject()) {
            addObject(parent, it.value().toObject(), prefix + it.key() + u'.');
            continue;
        }
        new QTreeWidgetItem(parent, {prefix + it.key(), jsonText(it.value())});
    }
}
} // namespace

ExecutionWindow::ExecutionWindow(ExecutionFollower* follower, ConsoleSettings* settings,
                                 QWidget* parent)
    : QWidget(parent, Qt::Window), m_follower(follower), m_settings(settings),
      m_banner(new HostBanner(tr("Execution"), QStringLiteral(":/icons/executions.svg"), this)),
      m_stateIcon(new QLabel(this)), m_state(new QLabel(this)), m_facts(new QLabel(this)),
      m_notice(new QLabel(this)), m_tabs(new QTabWidget(this)), m_log(new LogView(this)),
      m_details(new QTreeWidget(this)), m_egress(new QTreeWidget(this)) {
    follower->setParent(this);
    m_banner->setConnection(follower->connection());
    setWindowIcon(QIcon(QStringLiteral(":/icons/executions.svg")));

    QFont bold = m_state->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.15);
    m_state->setFont(bold);
    m_state->setObjectName(QStringLiteral("executionState"));
    m_facts->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notice->setWordWrap(true);
    m_notice->setStyleSheet(QStringLiteral("color: #b26a00;"));
    m_notice->setVisible(false);
    auto* stateRow = new QHBoxLayout;
    stateRow->addWidget(m_stateIcon);
    stateRow->addWidget(m_state);
    stateRow->addSpacing(12);
    stateRow->addWidget(m_facts, 1);

    auto* toolbar = new QToolBar(this);
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_follow = toolbar->addAction(QIcon(QStringLiteral(":/icons/follow.svg")), tr("Follow"));
    m_follow->setCheckable(true);
    m_follow->setChecked(true);
    m_follow->setToolTip(tr("Keep the end of the log in view"));
    m_pause = toolbar->addAction(QIcon(QStringLiteral(":/icons/pause.svg")), tr("Pause"));
    m_pause->setCheckable(true);
    m_pause->setToolTip(tr("Hold new output aside (bounded) until resumed"));
    auto* find = toolbar->addAction(QIcon(QStringLiteral(":/icons/find.svg")), tr("Find…"));
    find->setShortcut(QKeySequence::Find);
    find->setToolTip(tr("Find in the log (Ctrl+F)"));
    auto* save = toolbar->addAction(QIcon(QStringLiteral(":/icons/save.svg")), tr("Save log…"));
    save->setShortcut(QKeySequence::Save);
    toolbar->addSeparator();
    m_cancel = toolbar->addAction(QIcon(QStringLiteral(":/icons/cancel.svg")), tr("Cancel run"));
    m_cancel->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
    m_cancel->setToolTip(tr("Cancel this execution (Ctrl+.)"));
    auto* refresh = new QAction(this);
    refresh->setShortcut(QKeySequence::Refresh);
    addAction(refresh);
    for (QAction* a : {find, save, m_cancel})
        a->setShortcutContext(Qt::WindowShortcut);
    connect(m_follow, &QAction::toggled, m_log, &LogView::setFollowing);
    connect(m_log, &LogView::followingChanged, m_follow, &QAction::setChecked);
    connect(m_pause, &QAction::toggled, m_log, &LogView::setPaused);
    connect(find, &QAction::triggered, this, [this] {
        m_tabs->setCurrentWidget(m_log);
        m_log->showFindBar();
    });
    connect(save, &QAction::triggered, this, &ExecutionWindow::saveLog);
    connect(m_cancel, &QAction::triggered, this, [this] {
        if (m_follower) {
            m_cancel->setEnabled(false);
            m_follower->cancel();
        }
    });
    connect(refresh, &QAction::triggered, this, [this] {
        m_egressLoaded = false;
        loadEgress();
    });

    m_details->setColumnCount(2);
    m_details->setHeaderLabels({tr("Field"), tr("Value")});
    m_details->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_details->setAlternatingRowColors(true);
    m_egress->setColumnCount(7);
    m_egress->setHeaderLabels({tr("Time"), tr("Host"), tr("Port"), tr("Decision"), tr("Reason"),
                               tr("Bytes up"), tr("Bytes down")});
    m_egress->setRootIsDecorated(false);
    m_egress->setAlternatingRowColors(true);
    m_tabs->addTab(m_log, QIcon(QStringLiteral(":/icons/log.svg")), tr("Output"));
    m_tabs->addTab(m_details, QIcon(QStringLiteral(":/icons/info.svg")), tr("Details"));
    m_tabs->addTab(m_egress, QIcon(QStringLiteral(":/icons/network.svg")), tr("Egress"));
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
        if (m_tabs->currentWidget() == m_egress)
            loadEgress();
    });

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_banner);
    layout->addLayout(stateRow);
    layout->addWidget(m_notice);
    layout->addWidget(toolbar);
    layout->addWidget(m_tabs, 1);

    if (m_settings) {
        m_log->setMaxChars(m_settings->value(ConsoleSettings::Key::LogViewMaxChars).toInt());
        if (!restoreGeometry(m_settings->windowGeometry(QStringLiteral("execution"))))
            resize(980, 680);
    } else {
        resize(980, 680);
    }

    connect(follower, &ExecutionFollower::output, m_log, &LogView::appendOutput);
    connect(follower, &ExecutionFollower::infoChanged, this, &ExecutionWindow::showInfo);
    connect(follower, &ExecutionFollower::egressEvent, this, &ExecutionWindow::addEgressRow);
    connect(follower, &ExecutionFollower::gap, this, [this](qint64 bytes) {
        m_log->appendNote(tr("[… %1 bytes dropped by the agent's output retention …]")
                              .arg(QLocale().toString(bytes)));
    });
    connect(follower, &ExecutionFollower::notice, this, [this](const QString& text) {
        m_notice->setText(text);
        m_notice->setVisible(!text.isEmpty());
    });
    connect(follower, &ExecutionFollower::finished, this, &ExecutionWindow::onFinished);

    auto* ticker = new QTimer(this);
    ticker->setInterval(1000);
    connect(ticker, &QTimer::timeout, this, [this] {
        if (m_follower && !m_follower->isFinished())
            showInfo(m_follower->info());
    });
    ticker->start();
    showInfo(follower->info());
    if (follower->mode() == ExecutionFollower::Mode::Sync)
        m_egress->setDisabled(true);
}

ExecutionWindow::~ExecutionWindow() = default;

QString ExecutionWindow::stateText() const {
    return m_state->text();
}

QStringList ExecutionWindow::egressRows() const {
    QStringList rows;
    for (int i = 0; i < m_egress->topLevelItemCount(); ++i) {
        QStringList cells;
        for (int c = 0; c < m_egress->columnCount(); ++c)
            cells << m_egress->topLevelItem(i)->text(c);
        rows << cells.join(u'\t');
    }
    return rows;
}

void ExecutionWindow::showInfo(const ExecutionInfo& info) {
    setWindowTitle(tr("%1 — %2").arg(info.id.isEmpty() ? tr("Execution") : info.id,
                                     m_follower && m_follower->connection()
                                         ? m_follower->connection()->profile().displayName()
                                         : QString()));
    m_stateIcon->setPixmap(QIcon(ExecutionInfo::stateIcon(info.state)).pixmap(20, 20));
    m_state->setText(ExecutionInfo::stateLabel(info.state));
    m_state->setStyleSheet(
        QStringLiteral("color: %1;").arg(ExecutionInfo::stateColor(info.state).name()));
    m_state->setToolTip(info.statusReason);
    QStringList facts;
    if (!info.id.isEmpty())
        facts << info.id;
    if (!info.workspace.isEmpty())
        facts << tr("workspace %1").arg(info.workspace);
    if (!info.kind.isEmpty())
        facts << info.kind;
    if (info.exitCode)
        facts << tr("exit code %1").arg(*info.exitCode);
    if (!info.signal.isEmpty())
        facts << tr("signal %1").arg(info.signal);
    if (const auto d = info.effectiveDurationMs(QDateTime::currentDateTimeUtc()))
        facts << formatDurationMs(*d);
    if (!info.npuDevices.isEmpty()) {
        QStringList chips;
        for (int c : info.npuDevices)
            chips << QString::number(c);
        facts << tr("chips %1").arg(chips.join(QStringLiteral(", ")));
    }
    if (!info.environmentId.isEmpty())
        facts << tr("environment %1").arg(info.environmentId);
    if (m_follower && m_follower->mode() == ExecutionFollower::Mode::Sync)
        facts << tr("sync stream");
    m_facts->setText(facts.join(QStringLiteral(" · ")));
    m_cancel->setEnabled(!info.isTerminal() && !(m_follower && m_follower->isFinished()));
    showDetails(info);
    Q_EMIT executionChanged(info);
}

void ExecutionWindow::showDetails(const ExecutionInfo& info) {
    m_details->clear();
    auto* summary = new QTreeWidgetItem(m_details, {tr("Summary")});
    const QList<QPair<QString, QString>> rows{
        {tr("Execution"), info.id},
        {tr("Workspace"), info.workspace},
        {tr("Kind"), info.kind},
        {tr("State"), ExecutionInfo::stateLabel(info.state)},
        {tr("Reason"), info.statusReason},
        {tr("Exit code"), info.exitCode ? QString::number(*info.exitCode) : QString()},
        {tr("Signal"), info.signal},
        {tr("Created"), timeText(info.createdAt)},
        {tr("Started"), timeText(info.startedAt)},
        {tr("Finished"), timeText(info.finishedAt)},
        {tr("Duration"), info.durationMs ? formatDurationMs(*info.durationMs) : QString()},
        {tr("Science environment"), info.environmentId},
        {tr("Environment revision"), info.environmentRevisionId},
    };
    for (const auto& [field, value] : rows)
        if (!value.isEmpty())
            new QTreeWidgetItem(summary, {field, value});

    // What it used (docs/bounds.md): null where the agent did not measure it.
    const QJsonObject usage = info.raw.value(QLatin1String("usage")).toObject();
    const auto number = [&](const char* key) { return usage.value(QLatin1String(key)); };
    const QList<QPair<QString, QString>> used{
        {tr("Peak memory"), number("peakMemoryBytes").isDouble()
                                ? formatBytes(number("peakMemoryBytes").toInteger())
                                : QString()},
        {tr("CPU (user)"), number("cpuUserMs").isDouble()
                               ? formatDurationMs(number("cpuUserMs").toInteger())
                               : QString()},
        {tr("CPU (system)"), number("cpuSystemMs").isDouble()
                                 ? formatDurationMs(number("cpuSystemMs").toInteger())
                                 : QString()},
        {tr("Most processes"), number("maxProcesses").isDouble()
                                   ? QString::number(number("maxProcesses").toInt())
                                   : QString()},
    };
    auto* usageItem = new QTreeWidgetItem(m_details, {tr("Usage")});
    for (const auto& [field, value] : used)
        new QTreeWidgetItem(usageItem, {field, value.isEmpty() ? tr("(not measured)") : value});

    const QJsonObject epoch = info.raw.value(QLatin1String("permissionEpoch")).toObject();
    auto* epochItem = new QTreeWidgetItem(m_details, {tr("Permission epoch")});
    if (epoch.isEmpty())
        new QTreeWidgetItem(epochItem, {tr("(not reported)"), QString()});
    addObject(epochItem, epoch);

    const QJsonObject provenance = info.raw.value(QLatin1String("provenance")).toObject();
    auto* run = new QTreeWidgetItem(m_details, {tr("How it ran")});
    new QTreeWidgetItem(run, {tr("Working directory"),
                              provenance.value(QLatin1String("cwd")).toString(tr("/workspace"))});
    if (provenance.contains(QLatin1String("argv")))
        new QTreeWidgetItem(run, {tr("Command"), jsonText(provenance.value("argv"))});
    auto* env = new QTreeWidgetItem(run, {tr("Environment")});
    env->setExpanded(true);
    const QJsonObject envObject = provenance.value(QLatin1String("env")).toObject();
    if (envObject.isEmpty())
        new QTreeWidgetItem(env, {tr("(not reported)"), QString()});
    for (auto it = envObject.begin(); it != envObject.end(); ++it)
        new QTreeWidgetItem(env, {it.key(), it.value().toString()});

    auto* files = new QTreeWidgetItem(m_details, {tr("Changed files")});
    const QList<QPair<QString, const char*>> kinds{{tr("Created"), "createdFiles"},
                                                   {tr("Modified"), "modifiedFiles"},
                                                   {tr("Deleted"), "deletedFiles"}};
    for (const auto& [label, key] : kinds) {
        const QJsonArray list = info.raw.value(QLatin1String(key)).toArray();
        auto* item = new QTreeWidgetItem(files, {label, QLocale().toString(list.size())});
        for (const QJsonValue& f : list)
            new QTreeWidgetItem(item, {f.toString(), QString()});
    }
    const QJsonObject bytes = info.raw.value(QLatin1String("logBytes")).toObject();
    if (!bytes.isEmpty()) {
        auto* out = new QTreeWidgetItem(m_details, {tr("Output")});
        addObject(out, bytes);
    }
    m_details->expandToDepth(0);
    env->setExpanded(true);
}

void ExecutionWindow::addEgressRow(const QJsonObject& d) {
    const bool allowed = d.value(QLatin1String("allowed")).toBool() ||
                         d.value(QLatin1String("decision")).toString() == QLatin1String("allowed");
    const QDateTime at =
        QDateTime::fromString(d.value(QLatin1String("at")).toString(), Qt::ISODateWithMs);
    auto* item = new QTreeWidgetItem(
        m_egress,
        {at.isValid() ? QLocale().toString(at.toLocalTime().time(), QLocale::LongFormat)
                      : d.value(QLatin1String("at")).toString(),
         d.value(QLatin1String("host")).toString(), jsonText(d.value(QLatin1String("port"))),
         allowed ? tr("allowed") : tr("denied"),
         d.value(QLatin1String("message")).toString(d.value(QLatin1String("reason")).toString()),
         jsonText(d.value(QLatin1String("bytesUp"))),
         jsonText(d.value(QLatin1String("bytesDown")))});
    item->setIcon(3, QIcon(allowed ? QStringLiteral(":/icons/state-completed.svg")
                                   : QStringLiteral(":/icons/state-failed.svg")));
    item->setToolTip(4, d.value(QLatin1String("reason")).toString());
    for (int c : {2, 5, 6})
        item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
    for (int c = 0; c < m_egress->columnCount(); ++c)
        m_egress->resizeColumnToContents(c);
}

void ExecutionWindow::loadEgress() {
    if (m_egressLoaded || !m_follower || !m_follower->connection() ||
        m_follower->mode() != ExecutionFollower::Mode::Managed || m_follower->info().id.isEmpty())
        return;
    m_egressLoaded = true;
    m_follower->connection()->get(
        "/v1/executions/" + QUrl::toPercentEncoding(m_follower->info().id) + "/egress", this,
        [this](const ApiResponse& r) {
            m_egress->clear();
            if (isRouteMissing(r)) {
                new QTreeWidgetItem(m_egress, {QString(), tr("This agent does not record egress "
                                                             "decisions yet.")});
                return;
            }
            if (!r.ok()) {
                new QTreeWidgetItem(m_egress, {QString(), r.errorMessage()});
                return;
            }
            const QJsonObject o = r.json();
            QJsonArray list = o.value(QLatin1String("decisions")).toArray();
            if (list.isEmpty())
                list = o.value(QLatin1String("egress")).toArray();
            for (const QJsonValue& v : list)
                addEgressRow(v.toObject());
            if (list.isEmpty())
                new QTreeWidgetItem(m_egress, {QString(), tr("No connection was attempted.")});
        });
}

void ExecutionWindow::onFinished(const ExecutionInfo& info) {
    QString note = tr("— %1").arg(ExecutionInfo::stateLabel(info.state));
    if (info.exitCode)
        note += tr(", exit code %1").arg(*info.exitCode);
    if (info.durationMs)
        note += tr(", after %1").arg(formatDurationMs(*info.durationMs));
    if (!info.statusReason.isEmpty())
        note += tr(": %1").arg(info.statusReason);
    m_log->appendNote(note + QStringLiteral(" —"));
    m_cancel->setEnabled(false);
    m_egressLoaded = false;
    if (m_tabs->currentWidget() == m_egress)
        loadEgress();
}

void ExecutionWindow::saveLog() {
    const QString suggested =
        (m_follower && !m_follower->info().id.isEmpty() ? m_follower->info().id
                                                        : QStringLiteral("execution")) +
        QStringLiteral(".log");
    const QString path = QFileDialog::getSaveFileName(this, tr("Save log"), suggested,
                                                      tr("Log files (*.log *.txt);;All files (*)"));
    if (path.isEmpty())
        return;
    if (!m_follower || m_follower->mode() == ExecutionFollower::Mode::Sync ||
        !m_follower->connection()) {
        QString error;
        if (!m_log->saveTo(path, &error))
            QMessageBox::warning(this, tr("Save log"), tr("Could not save: %1").arg(error));
        return;
    }
    // Managed: the agent has the whole retained log; download it without holding it in memory.
    auto* download = new LogDownloader(m_follower->connection(), m_follower->info().id, path, this);
    auto* progress = new QProgressDialog(tr("Saving the log…"), tr("Cancel"), 0, 0, this);
    progress->setWindowModality(Qt::WindowModal);
    progress->setMinimumDuration(300);
    connect(download, &LogDownloader::progress, progress, [progress](qint64 bytes) {
        progress->setLabelText(tr("Saving the log… %1").arg(formatBytes(bytes)));
    });
    connect(progress, &QProgressDialog::canceled, download, &LogDownloader::abort);
    connect(download, &LogDownloader::finished, this, [this, download, progress](const QString& e) {
        progress->deleteLater();
        download->deleteLater();
        if (!e.isEmpty())
            QMessageBox::warning(this, tr("Save log"), tr("Could not save: %1").arg(e));
    });
    download->start();
}

void ExecutionWindow::closeEvent(QCloseEvent* event) {
    if (m_follower && m_follower->mode() == ExecutionFollower::Mode::Sync &&
        !m_follower->isFinished()) {
        const auto answer = QMessageBox::question(
            this, tr("Close"),
            tr("This execution runs on a sync stream: closing the window closes the stream and "
               "the agent kills the execution. Close anyway?"));
        if (answer != QMessageBox::Yes) {
            event->ignore();
            return;
        }
    }
    if (m_settings)
        m_settings->setWindowGeometry(QStringLiteral("execution"), saveGeometry());
    event->accept();
}

} // namespace runbox::console
