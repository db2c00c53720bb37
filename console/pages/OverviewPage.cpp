#include "console/pages/OverviewPage.h"

#include "console/api/ExecutionInfo.h"
#include "console/api/HealthReport.h"
#include "console/api/NpuInventory.h"
#include "console/connection/AgentConnection.h"
#include "console/widgets/HostBanner.h"
#include "console/widgets/SummaryCard.h"

#include <QGridLayout>
#include <QGroupBox>
#include <QJsonArray>
#include <QLabel>
#include <QLocale>
#include <QScrollArea>
#include <QVBoxLayout>

#include <memory>

namespace runbox::console {

namespace {
QString severityIcon(HealthFinding::Severity s) {
    switch (s) {
    case HealthFinding::Severity::Ok:
        return QStringLiteral(":/icons/state-completed.svg");
    case HealthFinding::Severity::Info:
        return QStringLiteral(":/icons/info.svg");
    case HealthFinding::Severity::Warning:
        return QStringLiteral(":/icons/warning.svg");
    case HealthFinding::Severity::Error:
        return QStringLiteral(":/icons/state-failed.svg");
    }
    return {};
}

QColor severityColor(HealthFinding::Severity s) {
    switch (s) {
    case HealthFinding::Severity::Ok:
        return QColor(0x2e, 0x7d, 0x32);
    case HealthFinding::Severity::Warning:
        return QColor(0xb2, 0x6a, 0x00);
    case HealthFinding::Severity::Error:
        return QColor(0xc6, 0x28, 0x28);
    case HealthFinding::Severity::Info:
        break;
    }
    return {};
}

QWidget* findingRow(const HealthFinding& f, QWidget* parent) {
    auto* row = new QWidget(parent);
    auto* icon = new QLabel(row);
    icon->setPixmap(QIcon(severityIcon(f.severity)).pixmap(18, 18));
    icon->setAlignment(Qt::AlignTop);
    auto* head = new QLabel(
        QStringLiteral("<b>%1</b> — %2").arg(f.topic.toHtmlEscaped(), f.summary.toHtmlEscaped()),
        row);
    head->setWordWrap(true);
    head->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* text = new QLabel(f.explanation, row);
    text->setWordWrap(true);
    text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    text->setStyleSheet(QStringLiteral("color: palette(dark);"));
    text->setVisible(!f.explanation.isEmpty() && f.explanation != f.summary);
    auto* body = new QVBoxLayout;
    body->setSpacing(1);
    body->addWidget(head);
    body->addWidget(text);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 2, 0, 2);
    layout->addWidget(icon, 0, Qt::AlignTop);
    layout->addLayout(body, 1);
    return row;
}
} // namespace

OverviewPage::OverviewPage(QWidget* parent)
    : AgentPage(tr("Overview"), QStringLiteral(":/icons/overview.svg"), parent) {
    auto* content = new QWidget;
    m_agentCard = new SummaryCard(tr("Agent"), QStringLiteral(":/icons/agent.svg"), content);
    m_sandboxCard = new SummaryCard(tr("Sandbox"), QStringLiteral(":/icons/shield.svg"), content);
    m_egressCard = new SummaryCard(tr("Egress"), QStringLiteral(":/icons/network.svg"), content);
    m_executionsCard =
        new SummaryCard(tr("Executions"), QStringLiteral(":/icons/executions.svg"), content);
    m_npuCard = new SummaryCard(tr("NPU chips"), QStringLiteral(":/icons/chip.svg"), content);
    m_workspacesCard =
        new SummaryCard(tr("Workspaces"), QStringLiteral(":/icons/workspace.svg"), content);
    auto* grid = new QGridLayout;
    grid->setSpacing(10);
    grid->addWidget(m_agentCard, 0, 0);
    grid->addWidget(m_sandboxCard, 0, 1);
    grid->addWidget(m_egressCard, 0, 2);
    grid->addWidget(m_executionsCard, 1, 0);
    grid->addWidget(m_npuCard, 1, 1);
    grid->addWidget(m_workspacesCard, 1, 2);

    auto* conclusion = new QGroupBox(tr("Sandbox conclusion"), content);
    m_headline = new QLabel(conclusion);
    m_headline->setObjectName(QStringLiteral("sandboxHeadline"));
    QFont f = m_headline->font();
    f.setBold(true);
    f.setPointSizeF(f.pointSizeF() * 1.15);
    m_headline->setFont(f);
    m_findings = new QVBoxLayout;
    m_findings->setSpacing(4);
    auto* cl = new QVBoxLayout(conclusion);
    cl->addWidget(m_headline);
    cl->addLayout(m_findings);

    m_limits = new QLabel(content);
    m_limits->setWordWrap(true);
    m_limits->setStyleSheet(QStringLiteral("color: palette(dark);"));

    auto* layout = new QVBoxLayout(content);
    layout->addLayout(grid);
    layout->addSpacing(6);
    layout->addWidget(conclusion);
    layout->addWidget(m_limits);
    layout->addStretch(1);

    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(content);
    setContent(scroll);
}

void OverviewPage::onConnectionChanged() {
    if (!isConnected())
        return;
    disconnect(connection(), &AgentConnection::healthChanged, this, nullptr);
    connect(connection(), &AgentConnection::healthChanged, this, &OverviewPage::showHealth);
    showHealth(connection()->health());
    showContent();
    loadCounts();
    loadNpu();
}

void OverviewPage::refresh() {
    if (!isConnected())
        return;
    connection()->refreshHealth();
    loadCounts();
    loadNpu();
}

QString OverviewPage::sandboxHeadline() const {
    return m_headline->text();
}

QStringList OverviewPage::findingTexts() const {
    return m_findingTexts;
}

void OverviewPage::showHealth(const QJsonObject& health) {
    const HealthReport report(health);
    AgentConnection* conn = connection();
    const qint64 skew = conn ? conn->clockOffsetMs() : 0;
    m_agentCard->setValue(
        report.version().isEmpty() ? tr("unknown") : tr("Runbox %1").arg(report.version()),
        tr("Protocol %1 · up %2").arg(report.protocol()).arg(formatDurationMs(report.uptimeMs())) +
            (skew != 0 ? u'\n' + tr("Clock offset to this host: %1 (compensated)")
                                     .arg(formatDurationMs(std::abs(skew)))
                       : QString()));

    const HealthFinding::Severity worst = report.sandboxSeverity();
    m_sandboxCard->setValue(
        report.sandboxHeadline(),
        health.value(QLatin1String("sandbox"))
            .toObject()
            .value(QLatin1String("bwrapVersion"))
            .toString(),
        severityColor(report.sandboxUsable() ? worst : HealthFinding::Severity::Error));
    m_headline->setText(report.sandboxHeadline());
    m_headline->setStyleSheet(
        QStringLiteral("color: %1;")
            .arg(severityColor(report.sandboxUsable() ? worst : HealthFinding::Severity::Error)
                     .name()));

    while (QLayoutItem* item = m_findings->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    m_findingTexts.clear();
    for (const HealthFinding& finding : report.sandboxFindings()) {
        m_findings->addWidget(findingRow(finding, m_headline->parentWidget()));
        m_findingTexts << QStringLiteral("%1: %2 — %3")
                              .arg(finding.topic, finding.summary, finding.explanation);
    }

    const HealthFinding egress = report.egressFinding();
    m_egressCard->setValue(egress.summary, egress.explanation, severityColor(egress.severity));

    const auto count = report.workspaceCount();
    const auto bytes = report.workspaceBytes();
    m_workspacesCard->setValue(count ? QLocale().toString(*count) : tr("—"),
                               bytes ? tr("%1 on disk").arg(formatBytes(*bytes))
                                     : tr("Disk use not reported by this agent"));
    if (report.runningCount() && report.queuedCount())
        m_executionsCard->setValue(tr("%1 running").arg(*report.runningCount()),
                                   tr("%1 queued").arg(*report.queuedCount()));

    QStringList limits;
    if (report.defaultTimeoutMs() > 0)
        limits << tr("Default timeout %1").arg(formatDurationMs(report.defaultTimeoutMs()));
    if (report.maxOutputBytes() > 0)
        limits << tr("output kept up to %1").arg(formatBytes(report.maxOutputBytes()));
    if (!report.languages().isEmpty())
        limits << tr("languages: %1").arg(report.languages().join(QStringLiteral(", ")));
    m_limits->setText(limits.join(QStringLiteral(" · ")));
}

void OverviewPage::loadCounts() {
    AgentConnection* conn = connection();
    if (!conn)
        return;
    const HealthReport report(conn->health());
    if (report.runningCount() && report.queuedCount())
        return; // the health answer carries them
    auto counts = std::make_shared<QPair<QString, QString>>();
    auto pending = std::make_shared<int>(2);
    for (const char* state : {"running", "queued"}) {
        banner()->beginBusy();
        conn->get(QByteArray("/v1/executions?limit=1000&state=") + state, this,
                  [this, state, counts, pending](const ApiResponse& r) {
                      banner()->endBusy();
                      QString text;
                      if (isRouteMissing(r)) {
                          m_executionsCard->setValue(
                              tr("—"), tr("Managed executions are not offered by this agent "
                                          "yet."));
                          return;
                      }
                      if (!r.ok()) {
                          text = tr("?");
                      } else {
                          const QJsonObject o = r.json();
                          const qsizetype n = o.value(QLatin1String("executions")).toArray().size();
                          const bool more =
                              !o.value(QLatin1String("nextCursor")).toString().isEmpty();
                          text = more ? tr("%1+").arg(n) : QLocale().toString(n);
                      }
                      (QLatin1String(state) == QLatin1String("running") ? counts->first
                                                                        : counts->second) = text;
                      if (--*pending == 0)
                          m_executionsCard->setValue(tr("%1 running").arg(counts->first),
                                                     tr("%1 queued").arg(counts->second));
                  });
    }
}

void OverviewPage::loadNpu() {
    AgentConnection* conn = connection();
    if (!conn)
        return;
    banner()->beginBusy();
    conn->get("/v1/npu/chips", this, [this](const ApiResponse& r) {
        banner()->endBusy();
        if (isRouteMissing(r)) {
            m_npuCard->setValue(tr("—"), tr("This agent does not offer Ascend NPUs yet."));
            return;
        }
        if (!r.ok()) {
            m_npuCard->setValue(tr("?"), r.errorMessage());
            return;
        }
        const NpuInventory inv = NpuInventory::fromJson(r.json());
        if (inv.chips.isEmpty()) {
            m_npuCard->setValue(tr("none"),
                                inv.reason.isEmpty() ? tr("No NPU on this host.") : inv.reason);
            return;
        }
        m_npuCard->setValue(tr("%1 of %2 usable").arg(inv.usableCount()).arg(inv.chips.size()),
                            tr("Source: %1").arg(inv.source));
    });
}

} // namespace runbox::console
