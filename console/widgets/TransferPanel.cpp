#include "console/widgets/TransferPanel.h"

#include "console/connection/FileTransfer.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include <limits>

namespace runbox::console {

namespace {
/// QProgressBar holds an int: large files are shown in KiB.
int scaled(qint64 bytes, qint64 total) {
    return total > std::numeric_limits<int>::max() ? int(bytes / 1024) : int(bytes);
}
} // namespace

TransferPanel::TransferPanel(QWidget* parent) : QWidget(parent) {
    auto* title = new QLabel(tr("Transfers"), this);
    m_clear = new QPushButton(tr("C&lear finished"), this);
    m_clear->setObjectName(QStringLiteral("clearTransfers"));
    connect(m_clear, &QPushButton::clicked, this, &TransferPanel::clearFinished);
    auto* head = new QHBoxLayout;
    head->addWidget(title);
    head->addStretch(1);
    head->addWidget(m_clear);

    auto* inner = new QWidget;
    m_list = new QVBoxLayout(inner);
    m_list->setContentsMargins(0, 0, 0, 0);
    m_list->addStretch(1);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setWidget(inner);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(head);
    layout->addWidget(scroll, 1);
}

void TransferPanel::add(FileTransfer* transfer) {
    transfer->setParent(this);
    auto* widget = new QWidget;
    const bool up = transfer->direction() == FileTransfer::Direction::Upload;
    const QString name = QFileInfo(transfer->localPath()).fileName();
    auto* label = new QLabel(up ? tr("↑ %1 → %2").arg(name, transfer->remotePath())
                                : tr("↓ %1 → %2").arg(transfer->remotePath(), name),
                             widget);
    label->setToolTip(transfer->localPath());
    Row row{widget, new QProgressBar(widget), new QPushButton(tr("Cancel"), widget),
            new QLabel(widget)};
    row.bar->setRange(0, 0);
    row.cancel->setObjectName(QStringLiteral("cancelTransfer"));
    row.outcome->setVisible(false);
    auto* layout = new QHBoxLayout(widget);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(label, 2);
    layout->addWidget(row.bar, 3);
    layout->addWidget(row.cancel);
    layout->addWidget(row.outcome, 2);
    m_list->insertWidget(m_list->count() - 1, widget);
    m_rows.insert(transfer, row);
    connect(row.cancel, &QPushButton::clicked, transfer, &FileTransfer::cancel);
    connect(transfer, &FileTransfer::progress, this, [this, transfer] { update(transfer); });
    connect(transfer, &FileTransfer::finished, this, [this, transfer] { update(transfer); });
    update(transfer);
}

void TransferPanel::update(FileTransfer* transfer) {
    const auto it = m_rows.constFind(transfer);
    if (it == m_rows.cend())
        return;
    const Row& row = *it;
    const qint64 total = transfer->bytesTotal();
    if (total >= 0) {
        row.bar->setRange(0, qMax(1, scaled(total, total)));
        row.bar->setValue(total == 0 ? 1 : scaled(transfer->bytesDone(), total));
        row.bar->setFormat(tr("%p% of %1").arg(QLocale().formattedDataSize(total)));
    }
    QString outcome;
    switch (transfer->state()) {
    case FileTransfer::State::Waiting:
    case FileTransfer::State::Running:
        return;
    case FileTransfer::State::Done:
        outcome = tr("Done");
        break;
    case FileTransfer::State::Failed:
        outcome = tr("Failed: %1").arg(transfer->errorText());
        break;
    case FileTransfer::State::Cancelled:
        outcome = tr("Cancelled");
        break;
    }
    row.cancel->setVisible(false);
    row.outcome->setText(outcome);
    row.outcome->setToolTip(outcome);
    row.outcome->setVisible(true);
}

QProgressBar* TransferPanel::progressBar(FileTransfer* transfer) const {
    return m_rows.value(transfer).bar;
}

QPushButton* TransferPanel::cancelButton(FileTransfer* transfer) const {
    return m_rows.value(transfer).cancel;
}

QString TransferPanel::outcomeText(FileTransfer* transfer) const {
    const auto it = m_rows.constFind(transfer);
    return it == m_rows.cend() || it->outcome->isHidden() ? QString() : it->outcome->text();
}

void TransferPanel::clearFinished() {
    for (auto it = m_rows.begin(); it != m_rows.end();) {
        const FileTransfer::State s = it.key()->state();
        if (s == FileTransfer::State::Waiting || s == FileTransfer::State::Running) {
            ++it;
            continue;
        }
        it->widget->deleteLater();
        it.key()->deleteLater();
        it = m_rows.erase(it);
    }
}

} // namespace runbox::console
