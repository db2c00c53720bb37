#include "console/widgets/ChipTileDelegate.h"

#include "console/models/NpuChipModel.h"

#include <QApplication>
#include <QIcon>
#include <QKeyEvent>
#include <QListView>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

namespace runbox::console {

namespace {
constexpr int kTileWidth = 220;
constexpr int kTileHeight = 154;
constexpr int kPad = 10;

QRect checkRect(const QRect& tile) {
    return QRect(tile.right() - kPad - 18, tile.top() + kPad, 18, 18);
}

QString optionalNumber(const QVariant& v, const QString& pattern, int decimals = 0) {
    if (!v.isValid())
        return QStringLiteral("—");
    return pattern.arg(QLocale().toString(v.toDouble(), 'f', decimals));
}
} // namespace

ChipTileDelegate::ChipTileDelegate(QObject* parent) : QStyledItemDelegate(parent) {}

QSize ChipTileDelegate::sizeHint(const QStyleOptionViewItem&, const QModelIndex&) const {
    return QSize(kTileWidth, kTileHeight);
}

void ChipTileDelegate::paint(QPainter* p, const QStyleOptionViewItem& option,
                             const QModelIndex& index) const {
    const bool selectable = index.data(NpuChipModel::SelectableRole).toBool();
    const bool checked = index.data(Qt::CheckStateRole).toInt() == Qt::Checked;
    const bool current = option.state & QStyle::State_Selected;
    const QPalette& pal = option.palette;
    const QRect tile = option.rect.adjusted(4, 4, -4, -4);

    p->save();
    p->setRenderHint(QPainter::Antialiasing);
    QPainterPath path;
    path.addRoundedRect(QRectF(tile), 8, 8);
    QColor fill = selectable ? pal.color(QPalette::Base) : pal.color(QPalette::Window);
    if (checked)
        fill = QColor(0xe3, 0xf2, 0xfd);
    p->fillPath(path, fill);
    QPen border(checked   ? QColor(0x15, 0x65, 0xc0)
                : current ? pal.color(QPalette::Highlight)
                          : pal.color(QPalette::Mid),
                checked || current ? 2.0 : 1.0);
    p->setPen(border);
    p->drawPath(path);

    const QColor text =
        selectable ? pal.color(QPalette::Text) : pal.color(QPalette::Disabled, QPalette::Text);
    const QColor dim = pal.color(QPalette::Disabled, QPalette::Text);
    QRect r = tile.adjusted(kPad, kPad, -kPad, -kPad);

    // Title: logic id, check box or "not usable" mark.
    QFont title = option.font;
    title.setBold(true);
    title.setPointSizeF(title.pointSizeF() * 1.3);
    p->setFont(title);
    p->setPen(text);
    const int titleHeight = QFontMetrics(title).height();
    p->drawText(QRect(r.left(), r.top(), r.width() - 24, titleHeight), Qt::AlignLeft,
                index.data(Qt::DisplayRole).toString());
    if (selectable) {
        QStyleOptionButton box;
        box.rect = checkRect(tile);
        box.state = QStyle::State_Enabled | (checked ? QStyle::State_On : QStyle::State_Off);
        QApplication::style()->drawPrimitive(QStyle::PE_IndicatorCheckBox, &box, p);
    } else {
        QIcon(QStringLiteral(":/icons/unavailable.svg")).paint(p, checkRect(tile));
    }
    int y = r.top() + titleHeight + 4;

    // Model and health.
    QFont body = option.font;
    p->setFont(body);
    const QFontMetrics fm(body);
    const int line = fm.height() + 3;
    const QString name = index.data(NpuChipModel::NameRole).toString();
    p->drawText(QRect(r.left(), y, r.width() / 2, line), Qt::AlignLeft | Qt::AlignVCenter,
                name.isEmpty() ? QStringLiteral("?") : name);
    const QString health = index.data(NpuChipModel::HealthRole).toString();
    const QColor healthColor = index.data(NpuChipModel::HealthColorRole).value<QColor>();
    const int dotX = r.left() + r.width() / 2;
    p->setBrush(healthColor); // health stays readable on unusable chips too
    p->setPen(Qt::NoPen);
    p->drawEllipse(QRect(dotX, y + line / 2 - 5, 10, 10));
    p->setPen(text);
    p->drawText(QRect(dotX + 15, y, r.width() / 2 - 15, line), Qt::AlignLeft | Qt::AlignVCenter,
                health.isEmpty() ? ChipTileDelegate::tr("health ?") : health);
    y += line;

    // Readings.
    p->setPen(selectable ? text : dim);
    const QString readings = ChipTileDelegate::tr("%1  ·  AI core %2")
                                 .arg(optionalNumber(index.data(NpuChipModel::TemperatureRole),
                                                     ChipTileDelegate::tr("%1 °C")),
                                      optionalNumber(index.data(NpuChipModel::AiCoreRole),
                                                     ChipTileDelegate::tr("%1 %")));
    p->drawText(QRect(r.left(), y, r.width(), line), Qt::AlignLeft | Qt::AlignVCenter, readings);
    y += line;

    // HBM bar.
    const QVariant used = index.data(NpuChipModel::HbmUsedRole);
    const QVariant total = index.data(NpuChipModel::HbmTotalRole);
    const QString hbm = total.isValid() && total.toLongLong() > 0
                            ? ChipTileDelegate::tr("HBM %1 / %2 GiB")
                                  .arg(QLocale().toString(used.toLongLong() / 1024.0, 'f', 1),
                                       QLocale().toString(total.toLongLong() / 1024.0, 'f', 0))
                            : ChipTileDelegate::tr("HBM —");
    p->drawText(QRect(r.left(), y, r.width(), line), Qt::AlignLeft | Qt::AlignVCenter, hbm);
    y += line;
    const QRect bar(r.left(), y, r.width(), 7);
    p->setPen(Qt::NoPen);
    p->setBrush(pal.color(QPalette::Midlight));
    p->drawRoundedRect(bar, 3, 3);
    if (total.isValid() && total.toLongLong() > 0) {
        const double frac = std::clamp(used.toDouble() / total.toDouble(), 0.0, 1.0);
        QRect filled = bar;
        filled.setWidth(int(bar.width() * frac));
        p->setBrush(!selectable  ? dim
                    : frac > 0.9 ? QColor(0xc6, 0x28, 0x28)
                                 : QColor(0x15, 0x65, 0xc0));
        p->drawRoundedRect(filled, 3, 3);
    }
    y += 12;

    // Probe result.
    QString probe = index.data(NpuChipModel::ProbeTextRole).toString();
    if (index.data(NpuChipModel::HeldRole).toBool()) {
        const QString holder = index.data(NpuChipModel::HolderRole).toString();
        probe = holder.isEmpty() ? tr("In use · %1").arg(probe)
                                 : tr("In use by %1 · %2").arg(holder, probe);
    }
    p->setPen(selectable ? QColor(0x2e, 0x7d, 0x32) : QColor(0xb2, 0x6a, 0x00));
    QFont small = option.font;
    small.setPointSizeF(small.pointSizeF() * 0.9);
    p->setFont(small);
    const QRect probeRect(r.left(), y, r.width(), r.bottom() - y);
    const QString elided =
        QFontMetrics(small).elidedText(probe, Qt::ElideRight, probeRect.width() * 2 - 20);
    p->drawText(probeRect, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, elided);
    p->restore();
}

bool ChipTileDelegate::editorEvent(QEvent* event, QAbstractItemModel* model,
                                   const QStyleOptionViewItem& option, const QModelIndex& index) {
    if (!(model->flags(index) & Qt::ItemIsUserCheckable))
        return false;
    const Qt::CheckState state =
        index.data(Qt::CheckStateRole).toInt() == Qt::Checked ? Qt::Unchecked : Qt::Checked;
    if (event->type() == QEvent::MouseButtonRelease) {
        const auto* me = static_cast<QMouseEvent*>(event);
        if (me->button() != Qt::LeftButton || !option.rect.contains(me->position().toPoint()))
            return false;
        return model->setData(index, state, Qt::CheckStateRole);
    }
    if (event->type() == QEvent::KeyPress && static_cast<QKeyEvent*>(event)->key() == Qt::Key_Space)
        return model->setData(index, state, Qt::CheckStateRole);
    return false;
}

void ChipTileDelegate::setUpBoard(QListView* board) {
    board->setObjectName(QStringLiteral("chipBoard"));
    board->setViewMode(QListView::IconMode);
    board->setFlow(QListView::LeftToRight);
    board->setWrapping(true);
    board->setResizeMode(QListView::Adjust);
    board->setMovement(QListView::Static);
    board->setSpacing(4);
    board->setUniformItemSizes(true);
}

} // namespace runbox::console
