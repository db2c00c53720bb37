#include "console/models/NpuChipModel.h"

#include <algorithm>

namespace runbox::console {

NpuChipModel::NpuChipModel(QObject* parent) : QAbstractListModel(parent) {}

int NpuChipModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_inventory.chips.size());
}

namespace {
template <typename T> QVariant optionalVariant(const std::optional<T>& v) {
    return v ? QVariant::fromValue(*v) : QVariant();
}
} // namespace

QVariant NpuChipModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const NpuChip& c = m_inventory.chips.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return tr("Chip %1").arg(c.logicId);
    case Qt::ToolTipRole: {
        QString tip = tr("Chip %1 (NPU %2, die %3): %4")
                          .arg(c.logicId)
                          .arg(c.npuId)
                          .arg(c.chipId)
                          .arg(c.name.isEmpty() ? tr("unknown model") : c.name);
        if (!c.selectable())
            tip += u'\n' + c.unusableReason();
        if (c.held)
            tip +=
                u'\n' + (c.holderText().isEmpty() ? tr("In use now by a run or job on this agent.")
                                                  : tr("In use now by %1.").arg(c.holderText()));
        return tip;
    }
    case Qt::CheckStateRole:
        if (!c.selectable())
            return {};
        return m_checked.contains(c.logicId) ? Qt::Checked : Qt::Unchecked;
    case LogicIdRole:
        return c.logicId;
    case NameRole:
        return c.name;
    case SelectableRole:
        return c.selectable();
    case ReasonRole:
        return c.unusableReason();
    case HealthRole:
        return c.health;
    case HealthColorRole:
        return c.healthColor();
    case TemperatureRole:
        return optionalVariant(c.temperatureC);
    case AiCoreRole:
        return optionalVariant(c.aiCorePercent);
    case HbmUsedRole:
        return optionalVariant(c.hbmUsedMb);
    case HbmTotalRole:
        return optionalVariant(c.hbmTotalMb);
    case PowerRole:
        return optionalVariant(c.powerW);
    case HeldRole:
        return c.held;
    case HolderRole:
        return c.holderText();
    case ProbeTextRole:
        return c.selectable() ? tr("Probe: usable") : c.unusableReason();
    default:
        return {};
    }
}

bool NpuChipModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::CheckStateRole ||
        !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    const NpuChip& c = m_inventory.chips.at(index.row());
    if (!c.selectable())
        return false;
    const bool check = value.value<Qt::CheckState>() == Qt::Checked;
    if (check == m_checked.contains(c.logicId))
        return true;
    if (check)
        m_checked.insert(c.logicId);
    else
        m_checked.remove(c.logicId);
    Q_EMIT dataChanged(index, index, {Qt::CheckStateRole});
    Q_EMIT checkedChipsChanged(checkedChips());
    return true;
}

Qt::ItemFlags NpuChipModel::flags(const QModelIndex& index) const {
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
    if (m_inventory.chips.at(index.row()).selectable())
        f |= Qt::ItemIsUserCheckable;
    return f;
}

void NpuChipModel::setInventory(const NpuInventory& inventory) {
    beginResetModel();
    m_inventory = inventory;
    QSet<int> still;
    for (const NpuChip& c : m_inventory.chips)
        if (c.selectable() && m_checked.contains(c.logicId))
            still.insert(c.logicId);
    const bool changed = still != m_checked;
    m_checked = still;
    endResetModel();
    if (changed)
        Q_EMIT checkedChipsChanged(checkedChips());
}

QList<int> NpuChipModel::checkedChips() const {
    QList<int> out(m_checked.begin(), m_checked.end());
    std::sort(out.begin(), out.end());
    return out;
}

void NpuChipModel::setCheckedChips(const QList<int>& logicIds) {
    QSet<int> wanted;
    for (const NpuChip& c : m_inventory.chips)
        if (c.selectable() && logicIds.contains(c.logicId))
            wanted.insert(c.logicId);
    if (wanted == m_checked)
        return;
    m_checked = wanted;
    if (!m_inventory.chips.isEmpty())
        Q_EMIT dataChanged(index(0), index(int(m_inventory.chips.size()) - 1),
                           {Qt::CheckStateRole});
    Q_EMIT checkedChipsChanged(checkedChips());
}

} // namespace runbox::console
