#pragma once

#include <QList>
#include <QString>

#include <sys/types.h>

namespace runbox::sandbox {

/// The unprivileged host identity one sandbox launcher (bwrap, or runbox-sandbox-guard in front
/// of it) runs as when the agent itself is privileged: docs/contracts.md "No sandbox is host
/// root". uid = gid; @c groups are supplementary groups (device nodes reached through their
/// group, e.g. NPU chips). Never 0.
struct SandboxUser {
    uid_t uid = 0;
    QList<gid_t> groups; ///< supplementary groups, besides the primary group uid

    /// A prepared, allocation-free form of the drop, for a vfork(2)/fork(2) child.
    struct Prepared {
        uid_t uid = 0;
        int groupCount = 0;
        gid_t groups[32] = {};
        int lastCap = 63; ///< highest capability number (/proc/sys/kernel/cap_last_cap)
    };
    /// Copies what the child needs; at most 32 supplementary groups (more → false).
    bool prepare(Prepared* out) const;

    /// In the child, before execve(2): drops the capability bounding set (where CAP_SETPCAP
    /// allows), sets the supplementary groups, then gid and uid (real, effective and saved),
    /// clears the effective, permitted, inheritable and ambient capability sets, and checks that
    /// uid and gid took effect. Raw system calls only (no glibc setxid broadcast, which is not
    /// safe in a vfork child): async-signal-safe. Returns 0 or the errno of the step that failed
    /// (EPERM when a check fails). Sources: capabilities(7), setresuid(2), prctl(2).
    static int dropInChild(const Prepared& prepared) noexcept;
};

/// In a child before execve(2) of a program that runs as the agent's own uid (bwrap --help in
/// BwrapPreflight, npu-smi): clears the ambient and inheritable capability sets, so that a
/// non-root agent's capabilities (systemd's AmbientCapabilities=, docs/service.md "Light
/// workspaces") do not pass through execve. Without it bwrap dies with "Unexpected capabilities
/// but not setuid". A root agent's children stay root (uid 0 regains every capability at
/// execve). Raw system calls only (async-signal-safe). Returns 0 or the errno of the step that
/// failed (EPERM when a set is still not empty). Source: capabilities(7) "Transformation of
/// capabilities during execve()", prctl(2) PR_CAP_AMBIENT_CLEAR_ALL.
int clearInheritedCapabilities() noexcept;

/// Whether this process holds privilege that must never reach a sandbox: effective uid 0, or
/// any capability in its permitted or effective set (capget(2)). Such an agent runs every strong
/// sandbox as a SandboxUser.
bool agentIsPrivileged();

} // namespace runbox::sandbox
