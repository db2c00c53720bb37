#pragma once

#include "console/api/EnvironmentInfo.h"

#include <QAbstractTableModel>
#include <QList>

namespace runbox::console {

/// The Environments page's table: one row per science environment (name, language, status with
/// its icon, current revision, last build failure). A new list with the same environments in
/// the same order updates the rows in place (the selection stays); any other list resets.
class EnvironmentTableModel final : public QAbstractTableModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EnvironmentTableModel)
public:
    enum Column {
        NameColumn,
        LanguageColumn,
        StatusColumn,
        RevisionColumn,
        FailureColumn,
        ColumnCount
    };
    enum Role { EnvironmentIdRole = Qt::UserRole + 1, StatusRole };

    explicit EnvironmentTableModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    void setEnvironments(const QList<EnvironmentInfo>& environments);
    const QList<EnvironmentInfo>& environments() const { return m_rows; }
    /// The environment of @p row (an empty one when out of range).
    EnvironmentInfo environmentAt(int row) const;
    /// The row of the environment @p id, -1 when not listed.
    int rowOf(const QString& id) const;
    /// Whether any listed environment is building (the page then polls).
    bool anyBuilding() const;

private:
    QList<EnvironmentInfo> m_rows;
};

} // namespace runbox::console
