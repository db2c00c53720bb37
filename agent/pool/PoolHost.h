#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <functional>

namespace runbox::pool {

/// What this agent carries as a host of a pool (docs/contracts.md "Pool hosts"): the pool's
/// name, its capacity here and its labels, all from the agent's own configuration (`--pool`,
/// `--pool-capacity`, `--pool-labels`), so no central record of the pool exists.
///
/// The capacity is enforced here, on the event loop, by reservations: a create reserves its
/// slots before any work and releases them once the created workspaces are registered, so two
/// creates in flight at once never pass the capacity together (the client's counts are only
/// optimistic; this is the authority). What does not fit is the create's `rejected` count.
class PoolHost final {
public:
    /// @p name the pool ("" = not a pool host: reserve() grants everything); @p capacity in
    /// workspaces (0 = no pool limit); @p heldNow returns how many workspaces the agent holds
    /// now (registered ones: a reservation covers those still being made).
    PoolHost(QString name, qint64 capacity, QStringList labels, qint64 exitWhenIdleS,
             std::function<int()> heldNow);

    bool isPoolHost() const { return !m_name.isEmpty(); }
    QString name() const { return m_name; }

    /// Reserves up to @p asked slots (asked ≥ 0) and returns how many were granted (0..asked):
    /// all of them without a capacity, else what capacity − held − reserved leaves. The caller
    /// must release() exactly what was granted once its create has finished (made or not).
    int reserve(int asked);
    /// Gives back @p granted slots of an earlier reserve().
    void release(int granted);

    /// This host's public nonce (docs/contracts.md "Pool credential"), shown in healthJson();
    /// empty = its agent token is not derived from a pool secret.
    void setHostNonce(const QByteArray& nonce) { m_hostNonce = nonce; }

    /// Free slots now: capacity − held − reserved (≥ 0), or -1 without a capacity.
    qint64 freeSlots() const;

    /// `/v1/health` "pool": `null` when the agent is no pool host, else
    /// `{"name","capacity","workspaces","reserved","free","labels":[…],"exitWhenIdleS",
    /// "hostNonce"}`
    /// (capacity 0 and free null = no pool limit; workspaces = every workspace the agent holds;
    /// hostNonce null = no pool secret).
    QJsonObject healthJson() const;

private:
    QString m_name;
    qint64 m_capacity = 0;
    QStringList m_labels;
    qint64 m_exitWhenIdleS = 0;
    std::function<int()> m_heldNow;
    QByteArray m_hostNonce;
    qint64 m_reserved = 0; ///< slots granted to creates still in flight
};

} // namespace runbox::pool
