#pragma once

#include "agent/store/WorkspaceRepository.h"
#include "agent/workspace/WorkspaceFs.h"
#include "shared/ApiError.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonObject>
#include <QMap>
#include <QString>

#include <memory>
#include <optional>

namespace runbox::workspace {

/// A workspace of the strong tier: a directory bound at /workspace in each sandbox.
struct Workspace {
    QString id;            ///< "w" + 16 hex
    QString isolation;     ///< "strong"
    QByteArray tokenNonce; ///< public nonce of its scoped token (32 hex)
    QString directory;     ///< host path
    QDateTime createdAt;
    /// The descriptor-relative view of the directory, opened once (file API, snapshots, usage).
    std::shared_ptr<const WorkspaceFs> fs;

    /// `{"id","isolation","createdAt"}` (never the token, never the host path).
    QJsonObject toJson() const;
};

/// The strong workspaces of this agent: each a directory `<stateDir>/workspaces/<id>/` and a row
/// of the workspaces table (store::WorkspaceRepository), so they survive restarts.
class WorkspaceRegistry final {
public:
    WorkspaceRegistry(QString workspacesDir, store::WorkspaceRepository* repository);

    /// Loads the live strong workspaces from the store; returns how many were loaded.
    int load();
    /// Creates a new empty workspace (directory mode 0700) for @p ownerTokenId (audit).
    /// Errors: 500 workspace_create_failed, store errors.
    std::optional<ApiError> create(const QString& ownerTokenId, Workspace* out);
    const Workspace* find(const QString& id) const;
    QList<Workspace> list() const;
    /// Marks the workspace deleted in the store and removes its directory tree (never following
    /// symlinks: nftw(3) FTW_PHYS). Errors: 404 workspace_not_found, 500 workspace_delete_failed.
    std::optional<ApiError> remove(const QString& id);

private:
    QString m_dir;
    store::WorkspaceRepository* m_repository;
    QMap<QString, Workspace> m_workspaces;
};

/// Removes @p path recursively without following symbolic links. Returns an error text or "".
QString removeTree(const QString& path);

} // namespace runbox::workspace
