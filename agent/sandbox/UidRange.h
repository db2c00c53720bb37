#pragma once

#include <QString>
#include <QStringList>

#include <sys/types.h>

namespace runbox::sandbox {

/// A range of host uids (used as uid = gid): [first, first + count).
struct UidRange {
    quint64 first = 0;
    quint64 count = 0;

    quint64 end() const { return first + count; } ///< one past the last uid
    bool contains(quint64 id) const { return id >= first && id < end(); }
    bool overlaps(const UidRange& other) const {
        return first < other.end() && other.first < end();
    }
    /// "first-last" (inclusive), for messages.
    QString toString() const;
};

/// Where the host's own ids are declared (overridable by tests).
struct HostIdFiles {
    QString passwd = QStringLiteral("/etc/passwd");
    QString group = QStringLiteral("/etc/group");
    QString subuid = QStringLiteral("/etc/subuid");
    QString subgid = QStringLiteral("/etc/subgid");
};

/// systemd's dynamic service users, 61184–65519 (systemd docs/UIDS-GIDS.md), and `nobody`.
inline constexpr UidRange kSystemdDynamicUsers{61184, 65520 - 61184};
inline constexpr quint64 kNobodyUid = 65534;

/// Why @p range cannot hold sandbox uids on this host: every conflict as one sentence (a uid or
/// gid of /etc/passwd or /etc/group inside it, an overlapping /etc/subuid or /etc/subgid range,
/// systemd's dynamic-user range, `nobody`, uid 0, or @p other, the light tier's range). Empty
/// when it is free. Files that do not exist are skipped.
QStringList uidRangeConflicts(const UidRange& range, const UidRange& other,
                              const HostIdFiles& files = {});

} // namespace runbox::sandbox
