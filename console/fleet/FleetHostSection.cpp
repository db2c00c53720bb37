#include "console/fleet/FleetHostSection.h"

#include "console/fleet/FleetHost.h"
#include "console/models/NpuChipModel.h"
#include "console/widgets/ChipTileDelegate.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListView>
#include <QPushButton>
#include <QVBoxLayout>

namespace runbox::console {

FleetHostSection::FleetHostSection(FleetHost* host, QWidget* parent)
    : QWidget(parent), m_host(host), m_title(new QLabel(this)), m_status(new QLabel(this)),
      m_board(new QListView(this)), m_run(new QPushButton(this)) {
    setObjectName(QStringLiteral("fleetHost_") + host->profileId());
    m_title->setTextFormat(Qt::PlainText);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_status->setObjectName(QStringLiteral("hostStatus"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    ChipTileDelegate::setUpBoard(m_board);
    m_board->setSelectionMode(QAbstractItemView::SingleSelection);
    m_board->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_board->setFrameShape(QFrame::NoFrame);
    m_board->setStyleSheet(QStringLiteral("QListView { background: palette(window); }"));
    m_board->setModel(host->chips());
    m_board->setItemDelegate(new ChipTileDelegate(m_board));

    m_run->setObjectName(QStringLiteral("fleetRun"));
    m_run->setIcon(QIcon(QStringLiteral(":/icons/run.svg")));
    connect(m_run, &QPushButton::clicked, this, [this] {
        if (m_host)
            Q_EMIT runRequested(m_host->profileId(), m_host->chips()->checkedChips());
    });
    connect(host, &FleetHost::changed, this, &FleetHostSection::showHost);
    connect(host->chips(), &NpuChipModel::checkedChipsChanged, this, &FleetHostSection::showHost);

    auto* head = new QHBoxLayout;
    head->addWidget(m_title);
    head->addStretch(1);
    head->addWidget(m_run);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 8);
    layout->addLayout(head);
    layout->addWidget(m_status);
    layout->addWidget(m_board);
    showHost();
}

QString FleetHostSection::statusText() const {
    return m_status->text();
}

void FleetHostSection::showHost() {
    if (!m_host)
        return;
    m_title->setText(m_host->name());
    m_title->setToolTip(m_host->url());
    m_status->setText(m_host->statusText());
    const bool chips = m_host->status() == FleetHost::Status::Chips;
    m_status->setStyleSheet(
        chips ? QString() : QStringLiteral("QLabel { color: #b26a00; font-style: italic; }"));
    m_board->setVisible(chips);
    const int n = int(m_host->chips()->checkedChips().size());
    m_run->setVisible(chips);
    m_run->setEnabled(n > 0);
    m_run->setText(n > 0 ? tr("Run on this host with %n chip(s)…", nullptr, n)
                         : tr("Run on this host with selected chips…"));
    fitBoard();
}

void FleetHostSection::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitBoard();
}

void FleetHostSection::fitBoard() {
    const int rows = m_board->model() ? m_board->model()->rowCount() : 0;
    if (rows == 0 || !m_board->isVisibleTo(this)) {
        m_board->setFixedHeight(0);
        return;
    }
    const QSize tile = m_board->sizeHintForIndex(m_board->model()->index(0, 0)) +
                       QSize(2 * m_board->spacing(), 2 * m_board->spacing());
    const int perRow = std::max(1, (m_board->width() - 4) / std::max(1, tile.width()));
    const int lines = (rows + perRow - 1) / perRow;
    m_board->setFixedHeight(lines * tile.height() + 4);
}

} // namespace runbox::console
