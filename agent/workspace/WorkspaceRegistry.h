#pragma once

#include "agent/Error.h"
#include "agent/sandbox/UidRange.h"
#include "agent/store/WorkspaceRepository.h"
#include "agent/workspace/LightRowWriter.h"
#include "agent/workspace/WorkspaceFs.h"
#include "agent/workspace/WorkspaceTrash.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonObject>
#include <QMap>
#include <QSet>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>
#include <sys/types.h>

namespace runbox::workspace {

/// A workspace: of the strong tier (a directory bound at /workspace in each sandbox) or of the
/// light tier (a home owned by a dedicated uid, run by agent/light; its env stays there, in
/// memory, and is never part of this struct).
struct Workspace {
    QString id;            ///< strong: "w" + 16 hex; light: 16 hex
    QString isolation;     ///< "strong" | "light"
    QByteArray tokenNonce; ///< public nonce of its scoped token (32 hex)
    QString directory;     ///< host path (light: the home)
    QDateTime createdAt;
    /// The host uid (= gid) its processes run as: light workspaces always; strong ones when the
    /// agent is privileged (docs/contracts.md "Sandbox uids"), unset under a rootless agent.
    std::optional<uid_t> uid;
    /// The descriptor-relative view of the directory, opened once (file API, snapshots, usage).
    /// Light: rooted at the home's descriptor, files created through it owned by the uid.
    std::shared_ptr<const WorkspaceFs> fs;

    bool isLight() const { return isolation == QLatin1String("light"); }
    /// `{"id","isolation","createdAt"}` plus `"uid"` when it has one (never the token, never
    /// the host path).
    QJsonObject toJson() const;
};

/// The workspaces of this agent, by id. Strong ones are each a directory
/// `<stateDir>/workspaces/<id>/` and a row of the workspaces table (store::WorkspaceRepository),
/// so they survive restarts. Light ones are registered here by light::LightService (a row without
/// env, for audit and for executions to refer to), so that auth, listings and the file API
/// resolve every workspace the same way; they do not survive a restart (their rows are marked
/// deleted by load()). Not thread-safe: the agent's main thread only.
///
/// Errors are runbox::Error (docs/contracts.md "Errors"), the store's among them.
class WorkspaceRegistry final {
public:
    WorkspaceRegistry(QString workspacesDir, store::WorkspaceRepository* repository);

    /// A privileged agent's sandbox uid range (call before load()): each strong workspace gets
    /// its own uid from [first + 1, end) (first is the probe uid), stable across restarts (the
    /// row's uid), never shared; its directory and every file the file API creates in it are
    /// owned by that uid. A uid is reused only after its workspace was deleted, its directory
    /// removed and @p sweep (kills the uid's processes; true when none is left) succeeded.
    void setSandboxUids(sandbox::UidRange range, std::function<bool(uid_t)> sweep);

    /// What a strong workspace's directory is given where the agent has a kernel quota for it
    /// (bounds::ProjectQuota, docs/bounds.md "Disk"), called on the main thread with the
    /// workspace (directory and uid set): @p attach after create() made the directory (its error
    /// refuses the create, the directory is removed) and for each workspace load() keeps (its
    /// error is logged; the workspace stays, its files reachable, and the quota's owner refuses
    /// its executions); @p detach after remove() removed the directory. Workspaces without a uid
    /// are never passed. Call before load().
    struct QuotaHooks {
        std::function<std::optional<Error>(const Workspace&)> attach;
        std::function<void(const Workspace&)> detach;
    };
    void setQuotaHooks(QuotaHooks hooks) { m_quotaHooks = std::move(hooks); }

    /// Loads the live strong workspaces from the store and marks the light rows of an earlier
    /// run deleted (their homes are removed by the light host at start); returns how many strong
    /// workspaces were loaded. With sandbox uids, a workspace without a uid in the range (made by
    /// a rootless or older agent) gets one, and its tree is chowned to it once (no link
    /// followed).
    int load();
    /// Creates a new empty workspace (directory mode 0700, owned by its uid when there are
    /// sandbox uids) for @p ownerTokenId (audit). Errors: Internal (500) workspace_create_failed,
    /// Unavailable (503) workspace_uids_exhausted (every uid of the range is held), store errors.
    std::optional<Error> create(const QString& ownerTokenId, Workspace* out);
    /// Registers light workspaces already made by the light host: kept in memory at once, their
    /// rows written by the group commit (LightRowWriter, within 20 ms or at flushLightRows()).
    std::optional<Error> addLight(const QList<Workspace>& workspaces, const QString& ownerTokenId);
    /// Forgets light workspace @p id (row marked deleted by the group commit; nothing on disk is
    /// touched: the light host removes the home). Its token stops working at once. NotFound
    /// (404) workspace_not_found when unknown or not light.
    std::optional<Error> forgetLight(const QString& id);
    /// Writes the light rows still queued now, before an execution row refers to light
    /// workspace @p id; answers only for @p id's row (LightRowWriter::flushFor).
    std::optional<Error> flushLightRows(const QString& id);
    /// Whether @p id is a light workspace registered through addLight() and not yet forgotten.
    bool hasLight(const QString& id) const { return m_lightIds.contains(id); }
    /// The ids of the light workspaces registered through addLight() and not yet forgotten,
    /// sorted (the order of list()).
    QStringList lightIds() const;
    const Workspace* find(const QString& id) const;
    QList<Workspace> list() const;
    int count() const { return int(m_workspaces.size()); }
    /// Called when a strong workspace's removal ended: std::nullopt, or Internal (500)
    /// workspace_delete_failed (the workspace is gone all the same, files may be left).
    using RemoveDone = std::function<void(std::optional<Error>)>;
    /// Deletes strong workspace @p id. At once: its directory is renamed into the trash
    /// (WorkspaceTrash), its row marked deleted and it is forgotten (find() is null, its token
    /// dead: new file calls and executions get 404). Then its tree is removed off the event loop
    /// (never following symlinks, at any depth), and on this thread its quota detached, its uid
    /// freed once swept, and @p done called. An error returned refuses the delete (nothing
    /// changed, @p done never called): NotFound (404) workspace_not_found, Conflict (409)
    /// workspace_is_light (light ones go through LightService), Internal (500)
    /// workspace_delete_failed (the directory could not be moved), store errors.
    std::optional<Error> remove(const QString& id, RemoveDone done = {});

private:
    std::optional<uid_t> takeUid();
    QString m_dir;
    std::optional<sandbox::UidRange> m_uids;
    std::function<bool(uid_t)> m_sweep;
    QSet<uid_t> m_heldUids; ///< by live workspaces, or not yet confirmed free
    QuotaHooks m_quotaHooks;
    store::WorkspaceRepository* m_repository;
    QMap<QString, Workspace> m_workspaces;
    QSet<QString> m_lightIds;   ///< registered by addLight(), until forgetLight()
    LightRowWriter m_lightRows; ///< flushed on destruction, while the repository lives
    WorkspaceTrash m_trash;     ///< last: its removals stop first
};

/// Removes @p path recursively through descriptors (WorkspaceRemoval: any depth, no symbolic
/// link followed, modes set by sandboxed code overridden). Returns an error text or "" (also
/// when @p path does not exist).
QString removeTree(const QString& path);

} // namespace runbox::workspace
