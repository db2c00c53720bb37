#pragma once

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

/// The strong workspaces of this agent: each a directory `<stateDir>/workspaces/<id>/` plus a
/// metadata file `<id>.json` beside it, so they survive restarts.
class WorkspaceRegistry final {
public:
    explicit WorkspaceRegistry(QString workspacesDir);

    /// Loads the metadata files found on disk; returns how many workspaces were loaded.
    int load();
    /// Creates a new empty workspace (directory mode 0700). Errors: 500 workspace_create_failed.
    std::optional<ApiError> create(Workspace* out);
    const Workspace* find(const QString& id) const;
    QList<Workspace> list() const;
    /// Removes the workspace's directory tree (never following symlinks: nftw(3) FTW_PHYS) and
    /// metadata. Errors: 404 workspace_not_found, 500 workspace_delete_failed.
    std::optional<ApiError> remove(const QString& id);

private:
    QString m_dir;
    QMap<QString, Workspace> m_workspaces;
};

/// Removes @p path recursively without following symbolic links. Returns an error text or "".
QString removeTree(const QString& path);

} // namespace runbox::workspace
