#pragma once

#include "agent/sandbox/UidRange.h"

#include <QList>
#include <QString>

namespace runbox::sandbox {

/// Keeps the uid ranges of the agents of one host disjoint: each privileged agent claims its
/// ranges (strong and light) in a shared directory (default /run/runbox/uid-ranges) as one file
/// it holds an flock(2) on for its whole life. A claim that overlaps a live agent's is refused,
/// so one agent's uid sweep never kills another's processes. A dead agent's lock is gone with
/// it (the kernel drops it), so its file is stale and is removed by the next claim.
/// docs/contracts.md "Sandbox uids".
class UidRangeRegistry final {
public:
    UidRangeRegistry() = default;
    ~UidRangeRegistry();
    UidRangeRegistry(const UidRangeRegistry&) = delete;
    UidRangeRegistry& operator=(const UidRangeRegistry&) = delete;

    struct Claim {
        QString tier; ///< "strong" | "light"
        UidRange range;
    };
    /// Claims @p claims in @p directory (created when missing; made 0700 and required to belong
    /// to this process's effective uid; the lock is waited for at most 5 s) for this process,
    /// labelled
    /// with @p stateDir. Returns false with @p error naming the live agent (pid, state dir) whose
    /// range overlaps, or the file error. Claiming again replaces the previous claim.
    bool claim(const QString& directory, const QList<Claim>& claims, const QString& stateDir,
               QString* error);

private:
    void release();
    int m_fd = -1;
    QString m_path;
};

} // namespace runbox::sandbox
