#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <functional>

namespace runbox {

class ApiClient;
class PoolCache;

/// One agent a pool client may place on: its fleet name (the host part of pooled ids) and a
/// client signed with its agent token (owned by the caller, outliving the PoolClient).
struct PoolHostHandle {
    QString name;
    ApiClient* client = nullptr;
};

/// What one agent's `/v1/health` says about it as a pool host (docs/contracts.md "Pool hosts").
struct PoolHostStatus {
    QString name;
    QString url;
    bool reachable = false; ///< it answered /v1/health with 200
    QString error;          ///< why not, when not reachable
    QString pool;           ///< "" = no pool host
    qint64 capacity = 0;    ///< 0 = no pool limit
    qint64 workspaces = 0;  ///< workspaces it holds
    qint64 free = -1;       ///< free slots; -1 = no pool limit
    qint64 exitWhenIdleS = 0;
    QStringList labels;
    /// `{"name","url","reachable","error"?,"pool","capacity","workspaces","free","labels",
    /// "exitWhenIdleS"}` (free null = no limit).
    QJsonObject toJson() const;
};

/// A workspace of a pool: pooled id `<host>.<local id>` (docs/contracts.md "Fleet file").
struct PooledWorkspace {
    QString id;         ///< "<host>.<localId>"
    QString host;       ///< the fleet name of its agent
    QString localId;    ///< the agent's own workspace id
    QJsonObject record; ///< the agent's create answer for it (token, isolation, …), id replaced
};

/// What to create in a pool.
struct PoolCreateRequest {
    QString pool;
    int count = 1;                               ///< ≥ 1
    QString isolation = QStringLiteral("light"); ///< "light" or "strong"
    QJsonObject lightOptions;      ///< more fields of a light create (idleTimeoutS, env…)
    int maxRounds = 8;             ///< placement rounds before giving up
    int requestTimeoutMs = 120000; ///< per round; a host that does not answer is skipped
    /// Called once a round is planned, before its creates go out (host → workspaces asked):
    /// progress reports, and tests that stop a host at that moment. May be empty.
    std::function<void(int round, const QMap<QString, int>& plan)> onRoundPlanned;
    /// Asked after each round: true ends the call as a failure (`cancelled`), what was made
    /// deleted again (the CLI's Ctrl-C). May be empty.
    std::function<bool()> cancelled;
};

/// The outcome of PoolClient::create: all of the workspaces, or none (`ok` false, `code` and
/// `message` say why, what was made was deleted again).
struct PoolCreateResult {
    bool ok = false;
    QString code;    ///< "no_pool_hosts", "pool_full", "create_refused", "cancelled"; "" when ok
    QString message; ///< a sentence naming the pool, what was placed and each host's state
    QList<PooledWorkspace> workspaces;
    QMap<QString, int> placed;      ///< host → workspaces made there (kept on failure: made)
    QMap<QString, QString> skipped; ///< host → why it was skipped (unreachable, error)
    QStringList leftBehind;         ///< pooled ids the roll-back could not delete
    int rounds = 0;
    /// Hosts whose first round was planned from the pool's cache (PoolClient::setCache).
    QStringList fromCache;
    /// `{"pool","workspaces":[{"id","host","localId",…record}],"placed":{host:n},
    /// "skipped":{host:reason},"rounds"}` (plus `"fromCache":[host…]` when any, and
    /// `"error":{"code","message"}` and `"leftBehind"` on failure).
    QJsonObject toJson(const QString& pool) const;
};

/// The pool client of the shared library (docs/contracts.md "Fleet file" and "Pool hosts"):
/// finds a pool's hosts among the given agents by their `/v1/health` "pool", places
/// workspaces on them and deletes them. Blocking (a local event loop; requests of one round go
/// out in parallel): for the CLI and tests, not the GUI thread.
///
/// Placement (create): optimistic client-side counts from each host's health — hosts filled in
/// the given order — with each host's own `rejected` as the authority (the host holds its
/// capacity, "Pool hosts"); an unreachable host, or one answering 5xx, is skipped; after a
/// round that left some unplaced, every host's health is read again, for at most maxRounds
/// rounds. All-or-nothing: a create that cannot place every workspace deletes what it made.
///
/// With a cache (setCache, docs/contracts.md "Pool cache"), the first round of create plans
/// from the cached free slots of the hosts whose fresh entry matches their handle's URL, pin
/// and token, and surveys only the others; what was seen is written back afterwards.
class PoolClient final {
public:
    explicit PoolClient(QList<PoolHostHandle> hosts);

    /// Uses @p cache (the caller's, loaded, outliving this client; nullptr = none) for
    /// placement only: never for where a request goes, which is always the handle's client.
    /// The handles are then the pool's whole discovery: cached hosts not among them are pruned.
    /// survey(), create() and removeAll() record what they saw in it and save it (a failed
    /// save is ignored: the cache is best-effort).
    void setCache(PoolCache* cache) { m_cache = cache; }

    /// Every host's status, read in parallel (GET /v1/health), within @p timeoutMs.
    QList<PoolHostStatus> survey(int timeoutMs = 10000) const;
    /// Places @p request.count workspaces in @p request.pool (see the class comment).
    PoolCreateResult create(const PoolCreateRequest& request) const;
    /// Deletes every workspace on the hosts of @p pool (light ones in bulk, strong ones one by
    /// one; an environment's build workspace is kept): host → count deleted. @p errors gets
    /// one line per failure (an unreachable host, a refused delete).
    QMap<QString, int> removeAll(const QString& pool, QStringList* errors) const;

    /// `<host>.<localId>`.
    static QString pooledId(const QString& host, const QString& localId);
    /// Splits a pooled id at its first '.': false when there is none or either side is empty.
    static bool splitPooledId(const QString& id, QString* host, QString* localId);

private:
    /// Every host's status: read (GET /v1/health, in parallel) for those not in @p known
    /// (index → status already known), from @p known for the others.
    QList<PoolHostStatus> readStates(const QMap<int, PoolHostStatus>& known, int timeoutMs) const;
    /// Records @p states (one per host, as readStates gives them, host i seen at @p seenAt[i])
    /// in the cache, if any: the pool's hosts recorded, the others, unreachable ones and those
    /// no longer among the handles pruned; then saves it.
    void remember(const QList<PoolHostStatus>& states, const QList<QDateTime>& seenAt) const;

    QList<PoolHostHandle> m_hosts;
    PoolCache* m_cache = nullptr;
};

} // namespace runbox
