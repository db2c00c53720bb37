#include "agent/service/OpenFileLimit.h"

#include <algorithm>
#include <sys/resource.h>

namespace runbox::service {

std::optional<QString> raiseOpenFileLimit(qint64 maxConnections) {
    // Database, logs, pipes, sandboxes in flight; plus deep tree walks at once (up to
    // WorkspaceTreeWalker::kMaxOpenDirectories, 256, each: the file pool's four threads, the
    // two usage walks, the two quota walks of mkdirs and uploads, the two removals of deleted
    // workspaces, the live quota watchers' two passes, the event loop's quota checks at submit
    // and snapshots).
    constexpr rlim_t kOwnDescriptors = 512 + 13 * 256;
    const rlim_t wanted = rlim_t(maxConnections) + kOwnDescriptors;
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= wanted)
        return std::nullopt;
    limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, limit.rlim_max);
    ::setrlimit(RLIMIT_NOFILE, &limit);
    if (limit.rlim_cur >= wanted)
        return std::nullopt;
    return QStringLiteral("warning: RLIMIT_NOFILE is %1, below the %2 that %3 connections "
                          "need; raise the hard limit or lower maxConnections")
        .arg(quint64(limit.rlim_cur))
        .arg(quint64(wanted))
        .arg(maxConnections);
}

} // namespace runbox::service
