#pragma once

#include <QStyledItemDelegate>

class QListView;

namespace runbox::console {

/// Paints one NpuChipModel row as a tile of the chip board: logic id, model, health colour,
/// temperature, AI-core %, an HBM bar and the probe result. Usable chips carry a check box
/// (click or Space toggles it); unusable ones are drawn greyed with their reason.
class ChipTileDelegate final : public QStyledItemDelegate {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ChipTileDelegate)
public:
    explicit ChipTileDelegate(QObject* parent = nullptr);

    /// Lays @p board out as a chip board (object name `chipBoard`): tiles left to right,
    /// wrapped, static, uniform, 4 px apart. Delegate, model and selection are the caller's.
    static void setUpBoard(QListView* board);

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    bool editorEvent(QEvent* event, QAbstractItemModel* model, const QStyleOptionViewItem& option,
                     const QModelIndex& index) override;
};

} // namespace runbox::console
