#include "console/models/EnvironmentTableModel.h"

#include <QColor>
#include <QIcon>

#include <algorithm>

namespace runbox::console {

EnvironmentTableModel::EnvironmentTableModel(QObject* parent) : QAbstractTableModel(parent) {}

int EnvironmentTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int EnvironmentTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EnvironmentTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const EnvironmentInfo& e = m_rows.at(index.row());
    if (role == EnvironmentIdRole)
        return e.id;
    if (role == StatusRole)
        return e.status;
    switch (index.column()) {
    case NameColumn:
        if (role == Qt::DisplayRole)
            return e.name;
        if (role == Qt::ToolTipRole)
            return tr("%1 (%2, provisioner %3)").arg(e.name, e.id, e.provisioner);
        break;
    case LanguageColumn:
        if (role == Qt::DisplayRole)
            return EnvironmentInfo::languageLabel(e.language);
        break;
    case StatusColumn:
        if (role == Qt::DisplayRole)
            return EnvironmentInfo::statusLabel(e.status);
        if (role == Qt::DecorationRole)
            return QIcon(EnvironmentInfo::statusIcon(e.status));
        break;
    case RevisionColumn:
        if (role == Qt::DisplayRole)
            return e.currentRevisionId.isEmpty() ? tr("none yet") : e.currentRevisionId;
        if (role == Qt::ToolTipRole)
            return tr("Revisions built so far: %1").arg(e.revisionCount);
        break;
    case FailureColumn:
        if (role == Qt::DisplayRole || role == Qt::ToolTipRole)
            return e.lastBuildFailure;
        if (role == Qt::ForegroundRole && !e.lastBuildFailure.isEmpty())
            return QColor(0xc6, 0x28, 0x28);
        break;
    default:
        break;
    }
    return {};
}

QVariant EnvironmentTableModel::headerData(int section, Qt::Orientation orientation,
                                           int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Name");
    case LanguageColumn:
        return tr("Language");
    case StatusColumn:
        return tr("Status");
    case RevisionColumn:
        return tr("Current revision");
    case FailureColumn:
        return tr("Last build failure");
    default:
        return {};
    }
}

void EnvironmentTableModel::setEnvironments(const QList<EnvironmentInfo>& environments) {
    bool sameRows = environments.size() == m_rows.size();
    for (qsizetype i = 0; sameRows && i < environments.size(); ++i)
        sameRows = environments.at(i).id == m_rows.at(i).id;
    if (!sameRows) {
        beginResetModel();
        m_rows = environments;
        endResetModel();
        return;
    }
    m_rows = environments;
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
}

EnvironmentInfo EnvironmentTableModel::environmentAt(int row) const {
    return row >= 0 && row < m_rows.size() ? m_rows.at(row) : EnvironmentInfo();
}

int EnvironmentTableModel::rowOf(const QString& id) const {
    for (qsizetype i = 0; i < m_rows.size(); ++i)
        if (m_rows.at(i).id == id)
            return int(i);
    return -1;
}

bool EnvironmentTableModel::anyBuilding() const {
    return std::any_of(m_rows.cbegin(), m_rows.cend(), [](const EnvironmentInfo& e) {
        return e.status == QLatin1String("building");
    });
}

} // namespace runbox::console
