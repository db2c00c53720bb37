#include "console/models/EntryListModel.h"

#include <QBrush>
#include <QColor>
#include <QIcon>
#include <QRegularExpression>

namespace runbox::console {

EntryListModel::EntryListModel(Validator validator, QObject* parent)
    : QAbstractListModel(parent), m_validator(std::move(validator)) {}

int EntryListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_entries.size());
}

QString EntryListModel::errorOf(const Entry& e) const {
    return e.error.isEmpty() ? e.agentError : e.error;
}

QVariant EntryListModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Entry& e = m_entries.at(index.row());
    const QString error = errorOf(e);
    switch (role) {
    case Qt::DisplayRole:
        // A refused entry says why right in the list (the tooltip repeats it).
        return error.isEmpty() ? e.text : tr("%1   — %2").arg(e.text, error);
    case Qt::EditRole:
        return e.text;
    case Qt::ToolTipRole:
        return error.isEmpty() ? e.text : tr("%1: refused — %2").arg(e.text, error);
    case Qt::DecorationRole:
        return error.isEmpty() ? QVariant()
                               : QVariant(QIcon(QStringLiteral(":/icons/warning.svg")));
    case Qt::ForegroundRole:
        return error.isEmpty() ? QVariant() : QVariant(QBrush(QColor(0xb7, 0x1c, 0x1c)));
    case Qt::BackgroundRole:
        return error.isEmpty() ? QVariant() : QVariant(QBrush(QColor(0xff, 0xeb, 0xee)));
    case ErrorRole:
        return error;
    default:
        return {};
    }
}

bool EntryListModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::EditRole ||
        !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    Entry& e = m_entries[index.row()];
    const QString text = value.toString().trimmed();
    if (text == e.text)
        return true;
    e.text = text;
    e.error = m_validator ? m_validator(text) : QString();
    e.agentError.clear();
    Q_EMIT dataChanged(index, index);
    Q_EMIT entriesChanged();
    return true;
}

Qt::ItemFlags EntryListModel::flags(const QModelIndex& index) const {
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsEditable | Qt::ItemNeverHasChildren;
}

bool EntryListModel::removeRows(int row, int count, const QModelIndex& parent) {
    if (parent.isValid() || row < 0 || count <= 0 || row + count > m_entries.size())
        return false;
    beginRemoveRows({}, row, row + count - 1);
    m_entries.remove(row, count);
    endRemoveRows();
    Q_EMIT entriesChanged();
    return true;
}

void EntryListModel::setEntries(const QStringList& entries) {
    beginResetModel();
    m_entries.clear();
    for (const QString& text : entries)
        m_entries.append({text, m_validator ? m_validator(text) : QString(), {}});
    m_baseline = entries;
    endResetModel();
    Q_EMIT entriesChanged();
}

QStringList EntryListModel::entries() const {
    QStringList out;
    for (const Entry& e : m_entries)
        out.append(e.text);
    return out;
}

int EntryListModel::addEntry(const QString& entry) {
    const int row = int(m_entries.size());
    const QString text = entry.trimmed();
    beginInsertRows({}, row, row);
    m_entries.append({text, m_validator ? m_validator(text) : QString(), {}});
    endInsertRows();
    Q_EMIT entriesChanged();
    return row;
}

int EntryListModel::addLines(const QString& text) {
    static const QRegularExpression separators(QStringLiteral("[,\\s]+"));
    QStringList items;
    for (const QString& line : text.split(u'\n')) {
        const QString trimmed = line.trimmed();
        if (trimmed.isEmpty() || trimmed.startsWith(u'#'))
            continue;
        items += trimmed.split(separators, Qt::SkipEmptyParts);
    }
    if (items.isEmpty())
        return 0;
    const int first = int(m_entries.size());
    beginInsertRows({}, first, first + int(items.size()) - 1);
    for (const QString& item : items)
        m_entries.append({item, m_validator ? m_validator(item) : QString(), {}});
    endInsertRows();
    Q_EMIT entriesChanged();
    return int(items.size());
}

bool EntryListModel::markRefused(const QString& entry, const QString& message) {
    bool found = false;
    for (int i = 0; i < m_entries.size(); ++i) {
        if (m_entries[i].text == entry || m_entries[i].text.trimmed() == entry.trimmed()) {
            m_entries[i].agentError = message;
            Q_EMIT dataChanged(index(i), index(i));
            found = true;
        }
    }
    if (found)
        Q_EMIT entriesChanged();
    return found;
}

QList<int> EntryListModel::invalidRows() const {
    QList<int> rows;
    for (int i = 0; i < m_entries.size(); ++i)
        if (!errorOf(m_entries.at(i)).isEmpty())
            rows.append(i);
    return rows;
}

} // namespace runbox::console
