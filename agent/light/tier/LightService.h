#pragma once

#include "agent/AgentContext.h"
#include "agent/Error.h"
#include "agent/light/LightTypes.h"
#include "agent/light/tier/LightEnvironments.h"
#include "agent/sandbox/NoSuidMount.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QThreadPool>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>

namespace runbox::light {
class LightBackgroundBounds;
class LightWorkspaceHost;
} // namespace runbox::light
namespace runbox::egress {
class NetworkPolicy;
}

namespace runbox::light {

/// A parsed `POST /v1/workspaces {"isolation":"light",…}` body.
struct LightCreateRequest {
    int count = 1;                 ///< 1..4096
    LightWorkspaceOptions options; ///< env (memory only), rlimits, allowed ports
    qint64 idleTimeoutMs = 0;      ///< 0 = never evicted
    /// `environmentId` / `environmentRevisionId` as asked ("" each when absent).
    QString environmentId;
    QString environmentRevisionId;
    /// What create() resolved them to (empty without an environment).
    LightEnvironments::Selection environment;
};

/// The light tier inside the agent (docs/light-workspaces.md "In the agent"): owns the
/// LightWorkspaceHost, registers its workspaces in the WorkspaceRegistry (so auth, listings and the
/// file API treat them like strong ones), deletes them off the event-loop thread, and evicts idle
/// ones. Lives on the main thread; every callback it takes is called there.
///
/// Deleting first forgets the workspace in the registry (its token and every route answer
/// 401/404 from then on, and workspaceRemoved() tells open proxy streams), then the host kills
/// everything of the uid and removes the home on a worker thread; the uid returns to the pool
/// only after that. So a request racing a delete fails with 404 (registry) or 409 (host), and
/// never runs under a recycled uid.
///
/// Errors are runbox::Error (docs/contracts.md "Errors"); the routes give them their status.
class LightService final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LightService)
public:
    explicit LightService(AgentContext* context, QObject* parent = nullptr);
    /// Deletes every light workspace (blocking) and stops the host.
    ~LightService() override;

    /// Starts the host: homes under `<state>/light` (or config.lightRoot; LightRootPath makes it
    /// reachable by the workspace uids, or refuses with the reason), @p controlPlanePorts (the
    /// agent's ports: plain and TLS) never reachable from a workspace, capacity from the quotas,
    /// minimum Landlock ABI from the config. False when the tier is unavailable (availability()
    /// says why); the agent runs on.
    bool start(const QList<quint16>& controlPlanePorts);
    bool available() const;
    /// Whether @p workspace is one of the light tier's (registered by this service), whatever
    /// the host's state: where the routes choose the light tier (as ExecutionManager::tierOf
    /// does for executions); elsewhere the registry's light ids (hasLight, lightIds) answer.
    static bool serves(const workspace::Workspace& workspace);
    LightAvailability availability() const;
    LightWorkspaceHost* host() const { return m_host.get(); }
    /// The science environments of its workspaces (docs/environments.md "Selection").
    LightEnvironments* environments() { return &m_environments; }
    const LightEnvironments* environments() const { return &m_environments; }
    /// The bounds of its workspaces between executions (null until start()).
    LightBackgroundBounds* backgroundBounds() const { return m_backgroundBounds; }
    /// Applies the quotas in force (maxLightWorkspaces; 0 = only the uid range limits).
    void applyQuotas();

    /// Reads a create body (isolation already checked): `count` (1..4096), `env` (object of
    /// strings, sandbox::EnvPolicy rules), `idleTimeoutS` (0..604800; default from the config),
    /// `maxProcs`, `maxMemoryMb`, `maxOpenFiles`, `maxFileSizeMb`, `maxCpuSeconds`
    /// (RlimitsJson), `allowedConnectPorts` (array of 1..65535: TCP connect only to
    /// these), `allowUdp` (bool: UDP sockets to anywhere), `environmentId` or
    /// `environmentRevisionId` (strings, not both: LightEnvironments::parse). InvalidArgument
    /// (400) on anything else (LightCreateRequest.cpp).
    std::optional<Error> parseCreate(const QJsonObject& body, LightCreateRequest* out) const;

    using CreateDone = std::function<void(std::optional<Error> error, const QJsonObject& body)>;
    /// Creates the workspaces and registers them. @p done gets the 201 body
    /// `{"workspaces":[{"id","token","uid","isolation":"light","confinement":{…},"createdAt"}],
    /// "rejected":M}` (a full host is not an error: M counts what did not fit), or an error:
    /// Unavailable (503) light_unavailable, 400s from the host, store errors.
    /// The workspaces' network is fixed here: the policy mode in force plus the request's grants.
    /// So is their science environment (LightEnvironments::acquire and its errors): each
    /// workspace item then has `environmentId` and `environmentRevisionId`; without a mount
    /// namespace per workspace (an agent that is not root) a selection is 503
    /// `light_environment_unavailable` with the reason, and nothing is created.
    void create(const LightCreateRequest& request, const QString& ownerTokenId, CreateDone done);
    /// The `confinement` object of light workspace @p id (with `networkAccess`), as create
    /// returned it; {} when unknown.
    QJsonObject confinementOf(const QString& id) const;
    /// `lastBoundsKill` of light workspace @p id (LightBackgroundBounds::lastKillJson): null, or
    /// why its processes were killed while no execution ran.
    QJsonValue lastBoundsKillOf(const QString& id) const;

    using RemoveDone = std::function<void(std::optional<Error> error)>;
    /// Deletes light workspace @p id (NotFound, 404 workspace_not_found when unknown; Internal,
    /// 500 cleanup_failed with the reason when its uid had to be quarantined).
    void remove(const QString& id, RemoveDone done);
    /// Deletes every light workspace; @p done gets the ids deleted and the errors.
    void
    removeAll(std::function<void(const QStringList& deleted, const QList<Error>& errors)> done);

    /// The idle clock of light workspace @p id for listings: `{"idleTimeoutS","lastUsedAt",
    /// "idleDeadlineAt"}` (ISO 8601 UTC; the deadline null while something runs or with no
    /// timeout: it is then never evicted as idle); {} when unknown.
    QJsonObject idleJsonOf(const QString& id) const;
    /// Marks @p id as used now (any authenticated route naming it). No-op for other ids.
    void touch(const QString& id);
    /// Something is running for @p id (a sync exec, a proxied request): never evicted meanwhile.
    void beginActivity(const QString& id);
    void endActivity(const QString& id);

    /// `availability().toJson()` plus `"workspaces"`, `"capacity"`, `"defaultIdleTimeoutS"`,
    /// `"uids":{"free","inUse","quarantined"}`, `"quarantinedUids":[{"uid","reason"}]` and
    /// `"backgroundBounds"` (LightBackgroundBounds::healthJson).
    QJsonObject healthJson() const;

Q_SIGNALS:
    /// @p id was forgotten (deleted or evicted): streams still open on it must end.
    void workspaceRemoved(const QString& id);

private:
    struct Entry {
        qint64 idleTimeoutMs = 0;
        qint64 lastUsedMs = 0;
        int active = 0;
    };
    /// create() once the network is fixed in @p request.
    void createFixed(const LightCreateRequest& request, const QString& ownerTokenId,
                     CreateDone done);
    /// Registers what the host created; answers @p done.
    void finishCreate(const LightCreateRequest& request, const QString& ownerTokenId,
                      const LightCreateResult& result, CreateDone done);
    /// Under the domain allowlist: @p options reach the egress gateway from a private network
    /// with the proxy variables set, and each supervisor's listener is served with @p policy
    /// (the snapshot at creation) through serveEgress().
    void offerEgressGateway(const egress::NetworkPolicy& policy, LightWorkspaceOptions* options);
    /// Hands @p fd, workspace @p id's gateway listener, to the egress service (this thread).
    void serveEgress(const egress::NetworkPolicy& policy, const QString& id, int fd);
    /// Forgets @p id here and in the registry (the first step of every delete).
    void forget(const QString& id);
    /// Runs host->remove(@p ids) on the worker pool, then @p done on this thread.
    void removeInBackground(const QStringList& ids, std::function<void(const QList<Error>&)> done);
    void evictIdle();

    AgentContext* m_context;
    sandbox::NoSuidMount m_rootNoSuid; ///< the light root, nosuid,nodev (outlives the host)
    std::unique_ptr<LightWorkspaceHost> m_host;
    LightBackgroundBounds* m_backgroundBounds = nullptr; ///< child; deleted before m_host
    QString m_startError; ///< why start() refused before the host was asked (root unreachable)
    QHash<QString, Entry> m_entries;  ///< the light workspaces registered and not being deleted
    LightEnvironments m_environments; ///< their environments, each held until forget()
    QThreadPool m_workers;            ///< blocking host calls (remove, large creates)
    QTimer m_idleTimer;
};

} // namespace runbox::light
