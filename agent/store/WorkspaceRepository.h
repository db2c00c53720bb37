#pragma once

#include "agent/Error.h"
#include "agent/store/Database.h"

#include <QList>
#include <QPair>
#include <QString>

#include <optional>

namespace runbox::store {

/// One row of the workspaces table. There is no env field on purpose: a workspace's env is
/// held in memory only (docs/light-workspaces.md), never here.
struct WorkspaceRecord {
    QString id;
    QString isolation;      ///< "strong" | "light"
    qint64 createdMs = 0;   ///< ms since the epoch; 0 → now on insert
    QString rootPath;       ///< absolute host path of the workspace directory / home when made
    QString ownerTokenId;   ///< id of the token that created it (audit), not the token
    QString tokenNonce;     ///< public nonce of its token (docs/contracts.md "Request signing")
    std::optional<int> uid; ///< the host uid its processes run as (light; strong under root)
    std::optional<qint64> deletedMs; ///< set once deleted (rows stay: executions refer to them)
};

/// The workspaces table. Callable from any thread. Errors: InvalidArgument (400)
/// `invalid_workspace`, NotFound (404) `workspace_not_found`, Conflict (409) `workspace_exists`,
/// and storeError()'s.
class WorkspaceRepository final {
public:
    explicit WorkspaceRepository(const Database& database) : m_database(database) {}

    /// Inserts @p workspaces in one transaction (all or none). 409 if an id exists.
    std::optional<Error> insert(const QList<WorkspaceRecord>& workspaces);
    /// The row (deleted ones too), or 404.
    std::optional<Error> get(const QString& id, WorkspaceRecord* out) const;
    /// Rows not deleted, oldest first; @p isolation filters when not empty.
    std::optional<Error> listLive(const QString& isolation, QList<WorkspaceRecord>* out) const;
    /// Marks the workspace deleted at @p deletedMs (0 → now). 404 if absent or already deleted.
    std::optional<Error> markDeleted(const QString& id, qint64 deletedMs);
    /// Sets the host uid of workspace @p id (a sandbox uid given at upgrade). 404 if absent.
    std::optional<Error> setUid(const QString& id, int uid);
    /// In one transaction (all or none): inserts @p created, then marks each of @p deleted
    /// (id, ms since the epoch; 0 → now) deleted. A deletion whose row is absent or already
    /// deleted is skipped. 409 if a created id exists. (workspace::LightRowWriter's group commit.)
    std::optional<Error> writeBatch(const QList<WorkspaceRecord>& created,
                                    const QList<QPair<QString, qint64>>& deleted);

private:
    const Database& m_database;
};

} // namespace runbox::store
