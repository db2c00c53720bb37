#include "console/fleet/FleetPage.h"

#include "console/fleet/FleetHost.h"
#include "console/fleet/FleetHostModel.h"
#include "console/fleet/FleetHostSection.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

namespace runbox::console {

namespace {
constexpr int kDefaultRefreshMs = 15000;
}

FleetPage::FleetPage(ConnectionManager* manager, QWidget* parent)
    : QWidget(parent), m_model(new FleetHostModel(manager, this)), m_summary(new QLabel(this)),
      m_empty(new QLabel(this)) {
    setObjectName(QStringLiteral("fleetPage"));
    m_summary->setObjectName(QStringLiteral("fleetSummary"));
    m_summary->setWordWrap(true);
    m_empty->setObjectName(QStringLiteral("fleetEmpty"));
    m_empty->setWordWrap(true);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setText(tr("No agent is connected. Connect agents in the list on the left; their "
                        "chips appear here, grouped by host."));
    auto* refreshButton =
        new QPushButton(QIcon(QStringLiteral(":/icons/refresh.svg")), tr("&Refresh"), this);
    refreshButton->setObjectName(QStringLiteral("fleetRefresh"));
    refreshButton->setToolTip(tr("Read every host's chips again (they are also read every %n "
                                 "second(s))",
                                 nullptr, kDefaultRefreshMs / 1000));
    connect(refreshButton, &QPushButton::clicked, this, &FleetPage::refresh);

    auto* hosts = new QWidget;
    m_hostsLayout = new QVBoxLayout(hosts);
    m_hostsLayout->addStretch(1);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(hosts);

    auto* top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(refreshButton);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_empty);
    layout->addWidget(scroll, 1);

    connect(m_model, &QAbstractItemModel::rowsInserted, this, &FleetPage::rebuild);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &FleetPage::rebuild);
    connect(m_model, &QAbstractItemModel::rowsMoved, this, &FleetPage::rebuild);
    connect(m_model, &QAbstractItemModel::modelReset, this, &FleetPage::rebuild);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &FleetPage::updateSummary);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        if (isVisible()) // hidden, the hosts' lines still follow their connections
            refresh();
    });
    setRefreshIntervalMs(kDefaultRefreshMs);
    rebuild();
}

QString FleetPage::title() const {
    return tr("Fleet");
}

QIcon FleetPage::icon() const {
    return QIcon(QStringLiteral(":/icons/chip.svg"));
}

FleetHostSection* FleetPage::section(const QString& profileId) const {
    for (FleetHostSection* s : m_sections)
        if (s->host() && s->host()->profileId() == profileId)
            return s;
    return nullptr;
}

void FleetPage::refresh() {
    m_model->refreshAll();
}

void FleetPage::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    refresh();
}

void FleetPage::setRefreshIntervalMs(int ms) {
    m_timer.stop();
    m_timer.setInterval(ms);
    if (ms > 0)
        m_timer.start();
}

void FleetPage::rebuild() {
    // Sections follow the model's rows; a host's checked chips live in its model and survive.
    for (FleetHostSection* s : std::as_const(m_sections)) {
        m_hostsLayout->removeWidget(s);
        delete s;
    }
    m_sections.clear();
    for (int row = 0; row < m_model->rowCount(); ++row) {
        auto* s = new FleetHostSection(m_model->hostAt(row));
        connect(s, &FleetHostSection::runRequested, this, &FleetPage::runRequested);
        m_hostsLayout->insertWidget(row, s);
        m_sections.append(s);
    }
    m_empty->setVisible(m_sections.isEmpty());
    updateSummary();
}

void FleetPage::updateSummary() {
    int reachable = 0, chips = 0, usable = 0;
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const QModelIndex i = m_model->index(row);
        const auto status = FleetHost::Status(i.data(FleetHostModel::StatusRole).toInt());
        if (status != FleetHost::Status::Unreachable && status != FleetHost::Status::Connecting)
            ++reachable;
        chips += i.data(FleetHostModel::ChipCountRole).toInt();
        usable += i.data(FleetHostModel::UsableCountRole).toInt();
    }
    m_summary->setText(
        tr("%1 of %n host(s) reachable", nullptr, m_model->rowCount()).arg(reachable) +
        QStringLiteral(" · ") + tr("%1 of %n chip(s) usable", nullptr, chips).arg(usable));
}

} // namespace runbox::console
