#include "console/pages/NpuPage.h"

#include "console/api/ExecutionInfo.h"
#include "console/connection/AgentConnection.h"
#include "console/models/NpuChipModel.h"
#include "console/widgets/ChipTileDelegate.h"
#include "console/widgets/HostBanner.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QLabel>
#include <QListView>
#include <QLocale>
#include <QPushButton>
#include <QVBoxLayout>

namespace runbox::console {

namespace {
constexpr int kProbeTimeoutMs = 180000;
}

NpuPage::NpuPage(QWidget* parent)
    : AgentPage(tr("NPU chips"), QStringLiteral(":/icons/chip.svg"), parent),
      m_model(new NpuChipModel(this)) {
    auto* content = new QWidget;
    m_summary = new QLabel(content);
    m_summary->setWordWrap(true);
    m_board = new QListView(content);
    ChipTileDelegate::setUpBoard(m_board);
    m_board->setMouseTracking(true);
    m_board->setSelectionMode(QAbstractItemView::SingleSelection);
    m_board->setModel(m_model);
    m_board->setItemDelegate(new ChipTileDelegate(m_board));
    m_board->setFrameShape(QFrame::NoFrame);
    m_board->setStyleSheet(QStringLiteral("QListView { background: palette(window); }"));

    m_detail = new QLabel(content);
    m_detail->setObjectName(QStringLiteral("chipDetail"));
    m_detail->setWordWrap(true);
    m_detail->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_detail->setMinimumHeight(m_detail->fontMetrics().height() * 2 + 8);
    m_detail->setStyleSheet(QStringLiteral(
        "QLabel { background: palette(base); border: 1px solid palette(mid); border-radius: 4px; "
        "padding: 4px; }"));

    m_reprobe =
        new QPushButton(QIcon(QStringLiteral(":/icons/refresh.svg")), tr("Re-&probe"), content);
    m_reprobe->setToolTip(tr("Probe every chip again in a one-shot sandbox (may take a while)"));
    auto* all = new QPushButton(tr("Select all usable"), content);
    auto* none = new QPushButton(tr("Clear selection"), content);
    m_run = new QPushButton(QIcon(QStringLiteral(":/icons/run.svg")),
                            tr("&Run with selected chips…"), content);
    m_run->setDefault(true);
    connect(m_reprobe, &QPushButton::clicked, this, &NpuPage::reprobe);
    connect(all, &QPushButton::clicked, this, [this] {
        QList<int> ids;
        for (const NpuChip& c : m_model->inventory().chips)
            if (c.selectable())
                ids << c.logicId;
        m_model->setCheckedChips(ids);
    });
    connect(none, &QPushButton::clicked, this, [this] { m_model->setCheckedChips({}); });
    connect(m_run, &QPushButton::clicked, this,
            [this] { Q_EMIT runRequested(m_model->checkedChips()); });
    connect(m_model, &NpuChipModel::checkedChipsChanged, this, &NpuPage::updateButtons);
    connect(m_board, &QListView::entered, this, &NpuPage::showDetail);
    connect(m_board->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& current) { showDetail(current); });

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_reprobe);
    buttons->addStretch(1);
    buttons->addWidget(all);
    buttons->addWidget(none);
    buttons->addWidget(m_run);

    auto* layout = new QVBoxLayout(content);
    layout->addWidget(m_summary);
    layout->addWidget(m_board, 1);
    layout->addWidget(m_detail);
    layout->addLayout(buttons);
    setContent(content);
    updateButtons();
}

void NpuPage::onConnectionChanged() {
    m_model->setInventory({});
    if (isConnected())
        load(false);
}

void NpuPage::refresh() {
    if (isConnected())
        load(false);
}

void NpuPage::reprobe() {
    if (isConnected())
        load(true);
}

void NpuPage::load(bool refresh) {
    m_probing = refresh;
    updateButtons();
    banner()->beginBusy();
    if (refresh)
        m_summary->setText(tr("Probing every chip in a one-shot sandbox…"));
    connection()->request(
        "GET", refresh ? "/v1/npu/chips?refresh=true" : "/v1/npu/chips", {}, this,
        [this, refresh](const ApiResponse& r) {
            banner()->endBusy();
            m_probing = false;
            updateButtons();
            if (isRouteMissing(r))
                return showUnavailable(tr("Ascend NPUs"), QStringLiteral("GET /v1/npu/chips"));
            if (!r.ok())
                return showPlaceholder(tr("Could not read the chips"), r.errorMessage(),
                                       QStringLiteral(":/icons/state-failed.svg"));
            showInventory(r.json());
            Q_EMIT loaded();
            if (refresh)
                Q_EMIT statusMessage(tr("Chips probed again."), 4000);
        },
        kProbeTimeoutMs);
}

void NpuPage::showInventory(const QJsonObject& answer) {
    const NpuInventory inv = NpuInventory::fromJson(answer);
    m_model->setInventory(inv);
    if (inv.chips.isEmpty()) {
        showPlaceholder(tr("No NPU on this host"),
                        inv.reason.isEmpty() ? tr("The agent found no Ascend chip.") : inv.reason,
                        QStringLiteral(":/icons/chip.svg"));
        return;
    }
    const QDateTime at = QDateTime::fromString(inv.capturedAt, Qt::ISODateWithMs);
    m_summary->setText(tr("%1 of %2 chips usable · source: %3 · read %4")
                           .arg(inv.usableCount())
                           .arg(inv.chips.size())
                           .arg(inv.source.isEmpty() ? tr("unknown") : inv.source,
                                at.isValid()
                                    ? QLocale().toString(at.toLocalTime(), QLocale::ShortFormat)
                                    : inv.capturedAt));
    m_detail->setText(tr("Click a usable chip to select it; hover a chip to see its details."));
    showContent();
    updateButtons();
}

void NpuPage::showDetail(const QModelIndex& index) {
    if (!index.isValid())
        return;
    const NpuChip& c = m_model->inventory().chips.at(index.row());
    QString text = tr("Chip %1 — %2, NPU %3 die %4, health %5")
                       .arg(c.logicId)
                       .arg(c.name.isEmpty() ? tr("unknown model") : c.name)
                       .arg(c.npuId)
                       .arg(c.chipId)
                       .arg(c.health.isEmpty() ? tr("unknown") : c.health);
    if (c.powerW)
        text += tr(", %1 W").arg(QLocale().toString(*c.powerW, 'f', 1));
    text += u'\n' + (c.selectable() ? tr("Usable: the last probe could open it inside a sandbox.")
                                    : tr("Not usable: %1").arg(c.unusableReason()));
    m_detail->setText(text);
}

QString NpuPage::detailText() const {
    return m_detail->text();
}

void NpuPage::updateButtons() {
    const int n = int(m_model->checkedChips().size());
    m_run->setEnabled(n > 0);
    m_run->setText(n > 0 ? tr("&Run with %n selected chip(s)…", nullptr, n)
                         : tr("&Run with selected chips…"));
    m_reprobe->setEnabled(!m_probing && isConnected());
}

} // namespace runbox::console
