#pragma once

#include <QAbstractTableModel>
#include <QList>
#include <QPair>

namespace runbox::console {

/// The run dialog's environment table: editable NAME / value rows. Invalid or duplicate names
/// are marked (red, with the reason as tooltip); the agent refuses them otherwise.
class EnvTableModel final : public QAbstractTableModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EnvTableModel)
public:
    enum Column { NameColumn, ValueColumn, ColumnCount };

    explicit EnvTableModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool insertRows(int row, int count, const QModelIndex& parent = {}) override;
    bool removeRows(int row, int count, const QModelIndex& parent = {}) override;

    /// Rows with a name (rows left with an empty name are ignored).
    QList<QPair<QString, QString>> variables() const;
    void setVariables(const QList<QPair<QString, QString>>& variables);
    /// Translated reason the name in @p row is refused, empty when fine.
    QString nameProblem(int row) const;

private:
    QList<QPair<QString, QString>> m_rows;
};

} // namespace runbox::console
