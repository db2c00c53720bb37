#pragma once

#include "console/api/FileEntry.h"

#include <QAbstractTableModel>

namespace runbox::console {

/// One workspace directory as the file API lists it, page by page (docs/contracts.md "Workspace
/// file API"): the rows are the entries of the pages received so far, in the agent's order
/// (bytewise by name). The model does no I/O: canFetchMore() says a next page exists and
/// fetchMore() asks for it through pageWanted(); whoever holds the connection answers with
/// appendPage(). A page for another directory, or not at the current end (a late answer after a
/// reset), is ignored, so rows never repeat or go missing.
class FileListModel final : public QAbstractTableModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FileListModel)
public:
    enum Column { NameColumn, SizeColumn, ModifiedColumn, PermissionsColumn, ColumnCount };

    explicit FileListModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    bool canFetchMore(const QModelIndex& parent) const override;
    void fetchMore(const QModelIndex& parent) override;

    /// Empties the model for directory @p path ("" = the workspace root); the first page is then
    /// expected through appendPage() (the caller requests it).
    void setDirectory(const QString& path);
    QString directory() const { return m_path; }
    /// Adds @p page when it is the next page of the current directory; false when ignored.
    bool appendPage(const DirectoryPage& page);
    /// The entry of @p row (an empty one when out of range).
    FileEntry entryAt(int row) const;
    /// Entries in the whole directory as the agent last said; -1 unknown.
    qint64 total() const { return m_total; }

Q_SIGNALS:
    /// The view wants the page of @p path starting at @p offset.
    void pageWanted(const QString& path, qint64 offset);

private:
    QString m_path;
    QList<FileEntry> m_rows;
    qint64 m_total = -1;
    qint64 m_nextOffset = -1;
    bool m_waiting = false; ///< a page was asked for and has not come
};

} // namespace runbox::console
