#pragma once

#include <QHash>
#include <QString>

#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <sys/types.h>
#include <vector>

namespace runbox::light {

/// The uids light workspaces run as: a configured range (default 20000..64999, which stays inside
/// a 0..65535 user-namespace mapping), minus every uid or gid named in /etc/passwd or /etc/group
/// and every uid/gid some process holds when the pool is built (scan of /proc). Handed out first
/// in, first out, so a released uid is reused as late as possible. Thread-safe; acquire() and
/// release() are O(1). A quarantined uid is never handed out again for the pool's lifetime.
class UidPool final {
public:
    struct Config {
        uid_t first = 20000;
        std::uint32_t count = 45000;
        QString passwdPath = QStringLiteral("/etc/passwd");
        QString groupPath = QStringLiteral("/etc/group");
        QString procPath = QStringLiteral("/proc");
    };
    struct Stats {
        std::uint32_t free = 0, inUse = 0, quarantined = 0, reserved = 0;
    };

    /// Builds the pool. An invalid range (first < 1000, count 0, or past 2^32−2) leaves it empty
    /// with the reason in error().
    explicit UidPool(const Config& config);

    /// A free uid (gid = the same number), or nullopt when none is left.
    std::optional<uid_t> acquire();
    /// Returns @p uid (which must be in use) to the free list. Call only after nothing of the uid
    /// is left (no process, no home). False when the uid was not in use (nothing changes).
    bool release(uid_t uid);
    /// Takes @p uid out of circulation for good, with @p reason (kept for reports).
    void quarantine(uid_t uid, const QString& reason);

    bool isQuarantined(uid_t uid) const;
    QString quarantineReason(uid_t uid) const;
    QHash<uid_t, QString> quarantined() const;
    Stats stats() const;
    /// Why the pool is empty from the start ("" when the range was valid).
    QString error() const { return m_error; }

    /// Ids (uids and gids, real/effective/saved/fs) held by any process under @p procPath.
    static std::vector<std::uint32_t> idsHeldByProcesses(const QString& procPath);
    /// Numeric ids in the third field of a passwd- or group-format file.
    static std::vector<std::uint32_t> idsInAccountFile(const QString& path);

private:
    enum class State : std::uint8_t { Reserved, Free, InUse, Quarantined };
    bool contains(uid_t uid) const;

    mutable std::mutex m_mutex;
    uid_t m_first = 0;
    std::uint32_t m_count = 0;
    std::vector<State> m_state;
    std::deque<uid_t> m_free;
    QHash<uid_t, QString> m_quarantine;
    std::uint32_t m_inUse = 0;
    QString m_error;
};

} // namespace runbox::light
