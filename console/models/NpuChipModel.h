#pragma once

#include "console/api/NpuInventory.h"

#include <QAbstractListModel>
#include <QSet>

namespace runbox::console {

/// The chips of one agent for the chip board, one row per chip in logic-id order. Usable chips
/// are checkable (Qt::CheckStateRole); the others carry their reason in ToolTipRole/ReasonRole.
class NpuChipModel final : public QAbstractListModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(NpuChipModel)
public:
    enum Role {
        LogicIdRole = Qt::UserRole + 1, ///< int
        NameRole,                       ///< QString chip model ("910B3")
        SelectableRole,                 ///< bool: supported and probed usable
        ReasonRole,                     ///< QString: why not selectable (translated)
        HealthRole,                     ///< QString: health word
        HealthColorRole,                ///< QColor
        TemperatureRole,                ///< double °C or invalid
        AiCoreRole,                     ///< double % or invalid
        HbmUsedRole,                    ///< qint64 MB or invalid
        HbmTotalRole,                   ///< qint64 MB or invalid
        PowerRole,                      ///< double W or invalid
        ProbeTextRole,                  ///< QString: "usable" or the reason (translated)
        HeldRole,                       ///< bool: reserved now by a run or broker job
        HolderRole, ///< QString: who holds it ("execution ID", translated); "" when unnamed
    };

    explicit NpuChipModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

    /// Replaces the chips; checked chips that are still selectable stay checked.
    void setInventory(const NpuInventory& inventory);
    const NpuInventory& inventory() const { return m_inventory; }
    /// Checked chips' logic ids, ascending.
    QList<int> checkedChips() const;
    void setCheckedChips(const QList<int>& logicIds);

Q_SIGNALS:
    void checkedChipsChanged(const QList<int>& logicIds);

private:
    NpuInventory m_inventory;
    QSet<int> m_checked;
};

} // namespace runbox::console
