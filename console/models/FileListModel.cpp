#include "console/models/FileListModel.h"

#include <QIcon>
#include <QLocale>

namespace runbox::console {

FileListModel::FileListModel(QObject* parent) : QAbstractTableModel(parent) {}

int FileListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int FileListModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FileListModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const FileEntry& e = m_rows.at(index.row());
    switch (index.column()) {
    case NameColumn:
        if (role == Qt::DisplayRole)
            // A link shows its target as text: the console never follows it.
            return e.isLink() ? tr("%1 → %2").arg(e.name, e.linkTarget) : e.name;
        if (role == Qt::ToolTipRole)
            return tr("%1 (%2)").arg(e.name, FileEntry::typeLabel(e.type));
        if (role == Qt::DecorationRole)
            return QIcon(e.isDirectory() ? QStringLiteral(":/icons/workspace.svg")
                                         : QStringLiteral(":/icons/log.svg"));
        break;
    case SizeColumn:
        if (role == Qt::DisplayRole && e.size >= 0 && !e.isDirectory())
            return QLocale().formattedDataSize(e.size);
        if (role == Qt::ToolTipRole && e.size >= 0)
            return tr("%1 bytes").arg(e.size);
        if (role == Qt::TextAlignmentRole)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case ModifiedColumn:
        if (role == Qt::DisplayRole && e.mtime.isValid())
            return QLocale().toString(e.mtime.toLocalTime(), QLocale::ShortFormat);
        break;
    case PermissionsColumn:
        if (role == Qt::DisplayRole)
            return e.permissionsText();
        break;
    default:
        break;
    }
    return {};
}

QVariant FileListModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Name");
    case SizeColumn:
        return tr("Size");
    case ModifiedColumn:
        return tr("Modified");
    case PermissionsColumn:
        return tr("Permissions");
    default:
        return {};
    }
}

bool FileListModel::canFetchMore(const QModelIndex& parent) const {
    return !parent.isValid() && !m_waiting && m_nextOffset > 0;
}

void FileListModel::fetchMore(const QModelIndex& parent) {
    if (!canFetchMore(parent))
        return;
    m_waiting = true;
    Q_EMIT pageWanted(m_path, m_nextOffset);
}

void FileListModel::setDirectory(const QString& path) {
    beginResetModel();
    m_path = path;
    m_rows.clear();
    m_total = -1;
    m_nextOffset = -1;
    m_waiting = true; // the caller asks for the first page
    endResetModel();
}

bool FileListModel::appendPage(const DirectoryPage& page) {
    if (page.path != m_path || page.offset != m_rows.size())
        return false;
    m_waiting = false;
    m_total = page.total;
    m_nextOffset = page.hasMore() ? page.nextOffset : -1;
    if (!page.entries.isEmpty()) {
        const int first = int(m_rows.size());
        beginInsertRows({}, first, first + int(page.entries.size()) - 1);
        m_rows.append(page.entries);
        endInsertRows();
    }
    return true;
}

FileEntry FileListModel::entryAt(int row) const {
    return row >= 0 && row < m_rows.size() ? m_rows.at(row) : FileEntry();
}

} // namespace runbox::console
