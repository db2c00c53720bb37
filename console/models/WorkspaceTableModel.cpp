#include "console/models/WorkspaceTableModel.h"

#include <QColor>
#include <QIcon>
#include <QJsonDocument>
#include <QLocale>
#include <QSet>

namespace runbox::console {

WorkspaceTableModel::WorkspaceTableModel(QObject* parent) : QAbstractTableModel(parent) {}

int WorkspaceTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int WorkspaceTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant WorkspaceTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const WorkspaceInfo& w = m_rows.at(index.row());
    if (role == WorkspaceIdRole)
        return w.id;
    const bool hasToken = m_tokens.contains(w.id);
    switch (index.column()) {
    case IdColumn:
        if (role == Qt::DisplayRole || role == SortRole)
            return w.id;
        if (role == Qt::DecorationRole)
            return QIcon(QStringLiteral(":/icons/workspace.svg"));
        break;
    case IsolationColumn:
        if (role == Qt::DisplayRole)
            return WorkspaceInfo::isolationLabel(w.isolation);
        if (role == SortRole)
            return w.isolation;
        if (role == Qt::ToolTipRole && !w.confinement.isEmpty())
            return tr("Confinement: %1")
                .arg(QString::fromUtf8(
                    QJsonDocument(w.confinement).toJson(QJsonDocument::Indented)));
        break;
    case CreatedColumn:
        if (role == Qt::DisplayRole)
            return w.createdAt.isValid()
                       ? QLocale().toString(w.createdAt.toLocalTime(), QLocale::ShortFormat)
                       : QString();
        if (role == SortRole)
            return w.createdAt.isValid() ? w.createdAt.toMSecsSinceEpoch() : qint64(-1);
        if (role == Qt::ToolTipRole && w.createdAt.isValid())
            return w.createdAt.toString(Qt::ISODateWithMs);
        break;
    case SizeColumn: {
        const Usage u = m_usage.value(w.id);
        if (role == Qt::DisplayRole && u.bytes >= 0)
            return (u.complete ? QString() : QStringLiteral("≥ ")) +
                   QLocale().formattedDataSize(u.bytes, 1, QLocale::DataSizeIecFormat);
        if (role == SortRole)
            return u.bytes;
        if (role == Qt::ToolTipRole)
            return u.bytes < 0 ? tr("Not measured yet.")
                   : u.complete
                       ? tr("%1 bytes on disk, as the workspace quota counts them.").arg(u.bytes)
                       : tr("At least %1 bytes: the walk stopped at the agent's entry cap.")
                             .arg(u.bytes);
        if (role == Qt::TextAlignmentRole)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        break;
    }
    case ExecutionsColumn:
        if (role == Qt::DisplayRole && w.recordedExecutions >= 0)
            return w.lastExecutionAt.isValid()
                       ? tr("%1, last %2")
                             .arg(w.recordedExecutions)
                             .arg(QLocale().toString(w.lastExecutionAt.toLocalTime(),
                                                     QLocale::ShortFormat))
                       : QString::number(w.recordedExecutions);
        if (role == SortRole)
            return w.lastExecutionAt.isValid() ? w.lastExecutionAt.toMSecsSinceEpoch()
                   : w.recordedExecutions < 0  ? qint64(-2)
                                               : qint64(-1);
        if (role == Qt::ToolTipRole)
            return tr("Executions the agent keeps records of (managed runs, environment builds, "
                      "NPU jobs; sync executions are not recorded) and when the newest was "
                      "started.");
        break;
    case UidColumn:
        if (role == Qt::DisplayRole)
            return w.uid >= 0 ? QString::number(w.uid) : QString();
        if (role == SortRole)
            return w.uid;
        break;
    case IdleColumn: {
        const qint64 idleS = idleTimeoutOf(w);
        if (role == Qt::DisplayRole && w.idleDeadlineAt.isValid())
            return tr("evicted at %1 if idle")
                .arg(QLocale().toString(w.idleDeadlineAt.toLocalTime().time(),
                                        QLocale::ShortFormat));
        if (role == Qt::DisplayRole && idleS > 0 && w.lastUsedAt.isValid())
            return tr("in use (evicted after %1 s idle)").arg(idleS);
        if (role == Qt::DisplayRole && idleS >= 0)
            return idleS == 0 ? tr("never evicted") : tr("evicted after %1 s idle").arg(idleS);
        if (role == SortRole)
            return w.idleDeadlineAt.isValid() ? w.idleDeadlineAt.toMSecsSinceEpoch() : idleS;
        if (role == Qt::ToolTipRole && w.idleDeadlineAt.isValid())
            return tr("Evicted after %1 s without use; last used %2.")
                .arg(idleS)
                .arg(QLocale().toString(w.lastUsedAt.toLocalTime(), QLocale::ShortFormat));
        if (role == Qt::ToolTipRole && idleS >= 0 && w.idleTimeoutS < 0)
            return tr("As the agent said when the workspace was created.");
        break;
    }
    case TokenColumn:
        if (role == Qt::DisplayRole)
            return hasToken ? tr("kept for this session") : QString();
        if (role == SortRole)
            return hasToken;
        if (role == Qt::ToolTipRole)
            return hasToken ? tr("The scoped token of this workspace is kept in memory until the "
                                 "console closes; it is never written to disk.")
                            : tr("The agent gives a workspace's token only when it is created: "
                                 "tokens of workspaces made elsewhere cannot be copied here.");
        break;
    case NotesColumn: {
        QStringList notes;
        if (!w.environmentBuild.isEmpty())
            notes << tr("build workspace of environment %1").arg(w.environmentBuild);
        if (!w.environmentId.isEmpty())
            notes << tr("runs environment %1").arg(w.environmentId);
        if (const QString kill = w.boundsKillText(); !kill.isEmpty())
            notes << kill;
        if (role == Qt::DisplayRole || role == Qt::ToolTipRole || role == SortRole)
            return notes.join(QStringLiteral("; "));
        if (role == Qt::ForegroundRole && !w.lastBoundsKill.isEmpty())
            return QColor(0xc6, 0x28, 0x28);
        break;
    }
    default:
        break;
    }
    return {};
}

QVariant WorkspaceTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case IdColumn:
        return tr("Workspace");
    case IsolationColumn:
        return tr("Isolation");
    case CreatedColumn:
        return tr("Created");
    case SizeColumn:
        return tr("Size");
    case ExecutionsColumn:
        return tr("Executions");
    case UidColumn:
        return tr("UID");
    case IdleColumn:
        return tr("Idle timeout");
    case TokenColumn:
        return tr("Token");
    case NotesColumn:
        return tr("Notes");
    default:
        return {};
    }
}

void WorkspaceTableModel::setWorkspaces(const QList<WorkspaceInfo>& workspaces) {
    QSet<QString> listed;
    for (const WorkspaceInfo& w : workspaces)
        listed.insert(w.id);
    // Gone rows first, from the end so the row numbers stay right.
    for (int row = int(m_rows.size()) - 1; row >= 0; --row) {
        if (listed.contains(m_rows.at(row).id))
            continue;
        beginRemoveRows({}, row, row);
        m_usage.remove(m_rows.at(row).id);
        m_rows.removeAt(row);
        endRemoveRows();
    }
    QList<WorkspaceInfo> added;
    for (const WorkspaceInfo& w : workspaces) {
        const int row = rowOf(w.id);
        if (row < 0) {
            added.append(w);
            continue;
        }
        if (m_rows.at(row).raw != w.raw) {
            m_rows[row] = w;
            emitRowChanged(row);
        }
    }
    if (!added.isEmpty()) {
        const int first = int(m_rows.size());
        beginInsertRows({}, first, first + int(added.size()) - 1);
        m_rows.append(added);
        endInsertRows();
    }
}

void WorkspaceTableModel::emitRowChanged(int row) {
    Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

WorkspaceInfo WorkspaceTableModel::workspaceAt(int row) const {
    return row >= 0 && row < m_rows.size() ? m_rows.at(row) : WorkspaceInfo();
}

int WorkspaceTableModel::rowOf(const QString& id) const {
    for (qsizetype i = 0; i < m_rows.size(); ++i)
        if (m_rows.at(i).id == id)
            return int(i);
    return -1;
}

void WorkspaceTableModel::rememberToken(const QString& id, const QString& token) {
    if (id.isEmpty() || token.isEmpty())
        return;
    m_tokens.insert(id, token);
    if (const int row = rowOf(id); row >= 0)
        emitRowChanged(row);
}

void WorkspaceTableModel::rememberCreated(const WorkspaceInfo& created) {
    if (created.id.isEmpty() || created.idleTimeoutS < 0)
        return;
    m_createdIdleTimeoutS.insert(created.id, created.idleTimeoutS);
    if (const int row = rowOf(created.id); row >= 0)
        emitRowChanged(row);
}

qint64 WorkspaceTableModel::idleTimeoutOf(const WorkspaceInfo& w) const {
    return w.idleTimeoutS >= 0 ? w.idleTimeoutS : m_createdIdleTimeoutS.value(w.id, -1);
}

void WorkspaceTableModel::setUsage(const QString& id, qint64 allocatedBytes, bool complete) {
    m_usage.insert(id, {allocatedBytes, complete});
    if (const int row = rowOf(id); row >= 0)
        Q_EMIT dataChanged(index(row, SizeColumn), index(row, SizeColumn));
}

void WorkspaceTableModel::forgetTokens() {
    m_tokens.clear();
    m_createdIdleTimeoutS.clear();
    m_usage.clear();
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
}

} // namespace runbox::console
