#pragma once

#include <string>
#include <sys/types.h>
#include <vector>

namespace runbox::light {

/// Walks and ends process trees through /proc (children lists need CONFIG_PROC_CHILDREN). Pure
/// libc, used inside the supervisor helper, whose /proc shows the pids of its own namespace.
/// Source: proc(5) (/proc/pid/task/tid/children, /proc/pid/stat).
class ProcessTree final {
public:
    /// Direct children of @p pid, from the children list of each of its threads.
    static std::vector<pid_t> children(pid_t pid);
    /// All descendants of @p pid (breadth first, @p pid itself excluded).
    static std::vector<pid_t> descendants(pid_t pid);
    /// True when @p pid is gone or a zombie (state Z or X in /proc/pid/stat).
    static bool isDead(pid_t pid);
    /// SIGKILLs every live descendant of @p root, rescanning until a scan finds none alive (an
    /// orphan of a killed process reparents to the nearest subreaper, @p root itself when it is
    /// one, and is found next round). Reaps what @p root may reap when @p reapOwnChildren (i.e.
    /// the caller is @p root). At most @p maxRounds scans; true when nothing is left alive.
    static bool killDescendants(pid_t root, int maxRounds, bool reapOwnChildren);
    /// Reads a whole small file (procfs) into @p out; false on error.
    static bool readFile(const std::string& path, std::string* out);
};

} // namespace runbox::light
