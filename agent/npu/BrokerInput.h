#pragma once

#include "agent/workspace/WorkspaceFd.h"

#include <QString>

#include <optional>

namespace runbox::npu {

/// One `${input:NAME}` of a host broker job, held open: an O_PATH descriptor of a regular file
/// or directory inside the caller's workspace. The broker runs on the host, and sandboxed code
/// can rename and re-link anything inside its workspace at any time, so the job is never handed
/// a path string it could be raced on: it inherits this descriptor under the same number
/// (BrokerJob clears its close-on-exec flag in the child only) and gets `/proc/self/fd/N`
/// (proc(5): opening it reopens the very inode that was checked; for a directory, names below
/// it are looked up from that directory). Move-only; closing it is the owner's job (BrokerJob
/// closes its copy once the job has started).
class BrokerInput final {
public:
    /// Opens @p relative beneath the workspace root descriptor @p workspaceRootFd through the
    /// descriptor-relative file layer (WorkspaceResolver: openat2 with RESOLVE_BENEATH |
    /// RESOLVE_NO_SYMLINKS, or O_NOFOLLOW per component), so no symbolic link is followed in
    /// any component and nothing outside the workspace is ever opened, whatever is swapped
    /// meanwhile. `.` segments and one trailing `/` are ignored; otherwise the rules of
    /// workspace::WorkspacePath::fromPlain apply (no `..`, empty, NUL, backslash, or percent
    /// escapes). Refused as well: an absolute path, a missing entry, and anything but a regular
    /// file or directory. Returns the pinned input, or nothing with a human reason (naming the
    /// workspace-relative path only) in @p error.
    static std::optional<BrokerInput> open(int workspaceRootFd, const QString& relative,
                                           QString* error);

    explicit BrokerInput(workspace::UniqueFd fd) : m_fd(std::move(fd)) {}

    /// The O_PATH descriptor (close-on-exec in the agent).
    int fd() const { return m_fd.get(); }
    /// `/proc/self/fd/N`: what the job's argv gets; valid in a process that inherited fd N.
    QString procPath() const;
    /// Closes the agent's copy.
    void close() { m_fd.reset(); }

private:
    workspace::UniqueFd m_fd;
};

} // namespace runbox::npu
