#pragma once

#include "agent/sandbox/SandboxCapability.h"
#include "agent/sandbox/SandboxIdentity.h"
#include "agent/sandbox/SandboxLaunch.h"

#include <QMap>
#include <QString>
#include <QStringList>

namespace runbox::sandbox {

/// What one execution asks of the sandbox; validated before it gets here.
struct LaunchSpec {
    QString workspaceDir;            ///< host directory bound read-write at /workspace
    QString cwd;                     ///< workspace-relative, already validated ("" = root)
    QStringList command;             ///< argv inside the sandbox (after "--")
    QMap<QString, QString> userEnv;  ///< the request's env, already through EnvPolicy
    QMap<QString, QString> extraEnv; ///< agent-set env of later features (egress, NPU): wins
    QStringList extraArgs;           ///< bwrap options of later features, placed after --dev
    QString seccompPath;             ///< exported BPF program, given as fd 3
    SandboxIdentity::Entry identity; ///< the passwd/group line of the sandbox's user
    QString stateDir;                ///< bwrap's host cwd
    QList<FdBinding> extraFds;       ///< descriptors of later features (LaunchFd numbers)
    std::optional<SandboxUser> user; ///< run bwrap as this host user (privileged agents)
    /// Size of the sandbox's /tmp and of its /dev/shm, each (bytes; 0 = bwrap's default, half
    /// the RAM). Used when the probe found `--size` (SandboxCapability::sizedTmpfs).
    qint64 tmpfsBytes = 0;
};

/// Builds the bwrap command line of the `strong` tier (docs/contracts.md "Strong sandbox") from the
/// probe's conclusion and a LaunchSpec. User strings only ever appear as option *values* (`--setenv
/// K V`, `--chdir DIR`) or after `--`, never where bwrap parses options.
class BwrapCommand final {
public:
    /// The full launch. Order: namespaces and caps; /usr ro and its symlinks; /etc pieces that
    /// exist (alternatives, ld.so.cache, CA trust, R) ro; /proc per the probe, then /proc/sys
    /// and /proc/sysrq-trigger read-only; --dev /dev; extraArgs; with sizedTmpfs --remount-ro
    /// /dev and a sized --tmpfs /dev/shm (01777); --tmpfs /tmp (sized); passwd/group
    /// from memfds (--ro-bind-data 7, 8); /workspace from its descriptor (--bind-fd 6);
    /// --chdir; --clearenv; --setenv …; --seccomp 3; --json-status-fd 4; -- command.
    static SandboxLaunch build(const SandboxCapability& capability, const LaunchSpec& spec);

    /// The environment every sandbox starts from: HOME=/tmp, PATH, LANG=C.UTF-8,
    /// PYTHONNOUSERSITE=1, TMPDIR=/tmp; then @p userEnv, then @p extraEnv on top.
    static QMap<QString, QString> sandboxEnvironment(const QMap<QString, QString>& userEnv,
                                                     const QMap<QString, QString>& extraEnv);

    /// The kernel knobs every launch binds read-only over its /proc, those that exist on this
    /// host (proc(5)): /proc/sys, /proc/sysrq-trigger.
    static QStringList readOnlyProcPaths();

    /// bwrap's own environment: PATH=/usr/bin:/bin, LANG=C.UTF-8 only.
    static QMap<QString, QString> bwrapEnvironment();
};

} // namespace runbox::sandbox
