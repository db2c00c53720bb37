#include "console/models/EnvTableModel.h"

#include "console/api/RunRequest.h"

#include <QBrush>
#include <QColor>

namespace runbox::console {

EnvTableModel::EnvTableModel(QObject* parent) : QAbstractTableModel(parent) {}

int EnvTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int EnvTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QString EnvTableModel::nameProblem(int row) const {
    if (row < 0 || row >= m_rows.size())
        return {};
    const QString& name = m_rows.at(row).first;
    if (name.isEmpty())
        return {};
    if (!RunRequest::isValidEnvName(name))
        return tr("Names are letters, digits and '_', not starting with a digit.");
    for (int i = 0; i < row; ++i)
        if (m_rows.at(i).first == name)
            return tr("%1 is already set above.").arg(name);
    return {};
}

QVariant EnvTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& [name, value] = m_rows.at(index.row());
    const bool nameColumn = index.column() == NameColumn;
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        return nameColumn ? name : value;
    case Qt::ToolTipRole:
        return nameColumn ? nameProblem(index.row()) : QVariant();
    case Qt::ForegroundRole:
        if (nameColumn && !nameProblem(index.row()).isEmpty())
            return QBrush(QColor(0xb7, 0x1c, 0x1c));
        return {};
    default:
        return {};
    }
}

bool EnvTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::EditRole ||
        !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    auto& row = m_rows[index.row()];
    if (index.column() == NameColumn)
        row.first = value.toString().trimmed();
    else
        row.second = value.toString();
    // A name change can make a later row a duplicate (or no longer one): refresh the names.
    Q_EMIT dataChanged(this->index(0, 0), this->index(int(m_rows.size()) - 1, ColumnCount - 1));
    return true;
}

QVariant EnvTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    return section == NameColumn ? tr("Variable") : tr("Value");
}

Qt::ItemFlags EnvTableModel::flags(const QModelIndex& index) const {
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsEditable | Qt::ItemNeverHasChildren;
}

bool EnvTableModel::insertRows(int row, int count, const QModelIndex& parent) {
    if (parent.isValid() || row < 0 || row > m_rows.size() || count <= 0)
        return false;
    beginInsertRows({}, row, row + count - 1);
    for (int i = 0; i < count; ++i)
        m_rows.insert(row, {});
    endInsertRows();
    return true;
}

bool EnvTableModel::removeRows(int row, int count, const QModelIndex& parent) {
    if (parent.isValid() || row < 0 || count <= 0 || row + count > m_rows.size())
        return false;
    beginRemoveRows({}, row, row + count - 1);
    m_rows.remove(row, count);
    endRemoveRows();
    return true;
}

QList<QPair<QString, QString>> EnvTableModel::variables() const {
    QList<QPair<QString, QString>> out;
    for (const auto& row : m_rows)
        if (!row.first.isEmpty())
            out.append(row);
    return out;
}

void EnvTableModel::setVariables(const QList<QPair<QString, QString>>& variables) {
    beginResetModel();
    m_rows = variables;
    endResetModel();
}

} // namespace runbox::console
