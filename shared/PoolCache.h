#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QMap>
#include <QString>

namespace runbox {

/// One pool host as a pool's cache remembers it (docs/contracts.md "Pool cache").
struct PoolCacheEntry {
    QString name;             ///< its fleet name (the host part of pooled ids)
    QString url;              ///< the base URL discovery gave when it was seen
    QString fingerprint;      ///< its pin as 64 lowercase hex digits; "" = none
    QString tokenFingerprint; ///< PoolCache::tokenFingerprint of its agent token
    qint64 free = -1;         ///< free slots when last seen; -1 = no pool limit
    qint64 capacity = 0;      ///< its pool capacity; 0 = no pool limit
    QDateTime seenAt;         ///< when it was seen (UTC)
};

/// The best-effort cache of one pool (docs/contracts.md "Pool cache"):
/// `$XDG_CACHE_HOME/runbox/pools/NAME/cache.json` (else `~/.cache/…`), directory 0700, file 0600,
/// `{"version":1,"pool","hosts":[{"name","url","fingerprint","tokenFingerprint","free",
/// "capacity","seenAt"}]}`. It holds what a pool client last saw of each host, for placement
/// only: an entry is used only while fresh and only when its URL, pin and token fingerprint
/// are the ones discovery gives now (usable()), and never says where a request goes. The token
/// itself is never written, only a fingerprint of it.
///
/// Everything that goes wrong is a miss, never an error: a file that is missing, unreadable,
/// not the user's own or readable by others, not JSON, of another version or pool, or an entry
/// with a missing, unknown or ill-typed member or a value out of range (that entry is dropped).
/// Writers merge under an flock(2) on `cache.json.lock` and replace the file atomically.
class PoolCache final {
public:
    static constexpr qint64 kFreshSecs = 15 * 60;        ///< how long an entry is believed
    static constexpr qint64 kMaxBytes = 8 * 1024 * 1024; ///< a larger file is a miss
    static constexpr qint64 kMaxCapacity = 1000000;      ///< the agent's --pool-capacity range
    static constexpr int kLockTimeoutMs = 5000;          ///< save() gives up after that

    /// `$XDG_CACHE_HOME/runbox/pools/POOL/cache.json` (else `~/.cache/…`); "" when @p pool is no
    /// valid pool name (FleetFile::validName), so no path can leave the pools directory.
    static QString defaultPath(const QString& pool);
    /// The first 16 lowercase hex digits of SHA-256 over @p token.
    static QString tokenFingerprint(const QByteArray& token);
    /// @p pin (32 bytes, ApiClient::pinnedSha256) as lowercase hex; "" for none.
    static QString pinHex(const QByteArray& pin);

    /// A cache of @p pool kept at @p path (defaultPath(pool) unless a test says otherwise);
    /// an empty @p path makes a cache that never loads nor saves anything.
    PoolCache(QString pool, QString path);

    const QString& pool() const { return m_pool; }
    const QString& path() const { return m_path; }

    /// Reads the file (see the class comment: any fault is a miss). Returns the number of
    /// entries read; @p why (optional) gets the reason of a miss, for logs and tests.
    int load(QString* why = nullptr);
    /// The entries read or recorded since.
    QList<PoolCacheEntry> entries() const { return m_entries.values(); }
    /// The entry of host @p name when it is fresh at @p now (seen at most kFreshSecs ago, and
    /// not in the future by more than a minute) and was recorded for @p url, @p pin and
    /// @p token (the ones discovery gives now); else nullptr.
    const PoolCacheEntry* usable(const QString& name, const QString& url, const QByteArray& pin,
                                 const QByteArray& token,
                                 const QDateTime& now = QDateTime::currentDateTimeUtc()) const;
    /// Remembers @p entry (replacing the host's), to be written by save().
    void record(const PoolCacheEntry& entry);
    /// Forgets host @p name (gone, or no host of the pool any more), here and, at save(), in
    /// the file unless another writer saw it after now.
    void prune(const QString& name);
    /// Prunes every entry whose host is not in @p names (hosts discovery no longer gives).
    void pruneAllBut(const QList<QString>& names);

    /// Merges what was recorded and pruned here into the file under its lock (the newer seenAt
    /// of a host wins; a prune wins over an older entry) and replaces the file atomically.
    /// Empty on success, else why (nothing then changed; callers carry on without it).
    QString save();

private:
    QString m_pool;
    QString m_path;
    QMap<QString, PoolCacheEntry> m_entries;
    QMap<QString, PoolCacheEntry> m_recorded; ///< written by save()
    QMap<QString, QDateTime> m_pruned;        ///< host → when it was pruned
};

} // namespace runbox
