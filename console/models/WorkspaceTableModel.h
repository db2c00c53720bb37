#pragma once

#include "console/api/WorkspaceInfo.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QList>

namespace runbox::console {

/// The Workspaces page's table: one row per workspace of the agent (id, tier, created, size once
/// measured, recorded executions and the last one's time, uid, idle timeout when reported, whether
/// its token is kept for this session, notes such as the environment it builds or the last
/// background-bounds kill). A refresh updates the rows in place: a workspace still listed keeps its
/// row (dataChanged), a gone one is removed, a new one is appended, so selections and sorting
/// proxies stay put. SortRole gives each column's sort key.
///
/// Scoped tokens (only in a create answer, docs/contracts.md "Workspaces and executions") are
/// held here in memory for the console's session: never written anywhere.
class WorkspaceTableModel final : public QAbstractTableModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorkspaceTableModel)
public:
    enum Column {
        IdColumn,
        IsolationColumn,
        CreatedColumn,
        SizeColumn,
        ExecutionsColumn,
        UidColumn,
        IdleColumn,
        TokenColumn,
        NotesColumn,
        ColumnCount
    };
    enum Role { WorkspaceIdRole = Qt::UserRole + 1, SortRole };

    explicit WorkspaceTableModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    /// Replaces the list, updating rows in place (see the class comment).
    void setWorkspaces(const QList<WorkspaceInfo>& workspaces);
    const QList<WorkspaceInfo>& workspaces() const { return m_rows; }
    /// The workspace of @p row (an empty one when out of range).
    WorkspaceInfo workspaceAt(int row) const;
    /// The row of workspace @p id, -1 when not listed.
    int rowOf(const QString& id) const;

    /// Keeps @p token of workspace @p id for this session (memory only).
    void rememberToken(const QString& id, const QString& token);
    /// The kept token of @p id ("" when none: not created in this session).
    QString tokenOf(const QString& id) const { return m_tokens.value(id); }
    /// Forgets every kept token and create-answer detail (another agent is shown).
    void forgetTokens();
    /// Keeps what a create answer said of @p created that listings leave out (today the light
    /// idle timeout, `idleTimeoutS`), shown while a listing does not report it.
    void rememberCreated(const WorkspaceInfo& created);
    /// The idle timeout shown for @p w (s): its own, else the one of its create answer; -1 unknown.
    qint64 idleTimeoutOf(const WorkspaceInfo& w) const;
    /// Shows @p allocatedBytes as the size of workspace @p id (`GET /v1/workspaces/{id}/usage`;
    /// @p complete false: the walk stopped at its cap, so at least that much). Kept across
    /// refreshes until the workspace is gone.
    void setUsage(const QString& id, qint64 allocatedBytes, bool complete);
    /// The allocated bytes shown for @p id, -1 while not measured.
    qint64 allocatedBytesOf(const QString& id) const { return m_usage.value(id).bytes; }

private:
    void emitRowChanged(int row);

    QList<WorkspaceInfo> m_rows;
    QHash<QString, QString> m_tokens;
    QHash<QString, qint64> m_createdIdleTimeoutS; ///< from create answers, by workspace id
    struct Usage {
        qint64 bytes = -1;
        bool complete = true;
    };
    QHash<QString, Usage> m_usage; ///< measured sizes, by workspace id
};

} // namespace runbox::console
