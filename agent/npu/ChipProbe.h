#pragma once

#include "agent/sandbox/SandboxUser.h"

#include <optional>

#include "agent/npu/NpuChip.h"
#include "agent/npu/NpuConfig.h"
#include "agent/npu/NpuPassthrough.h"

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QStringList>

namespace runbox::npu {

/// How the probe sandbox is launched. The launcher owns the real base argv; until it is wired the
/// defaults reproduce the strong tier's shape (docs/contracts.md "Strong sandbox").
struct ChipProbeOptions {
    QString bwrapPath = QStringLiteral("bwrap");
    /// Everything up to and including `--dev /dev` (namespaces, caps, /usr, /proc, /dev).
    QStringList baseArgs = defaultBaseArgs();
    /// Appended after `--tmpfs /tmp` (site-specific binds; tests bind their state here).
    QStringList extraArgs;
    /// Environment before the NPU variables are merged in (HOME, PATH).
    QMap<QString, QString> baseEnv = {{QStringLiteral("HOME"), QStringLiteral("/tmp")},
                                      {QStringLiteral("PATH"), QStringLiteral("/usr/bin:/bin")}};
    int timeoutMs = 15000;
    /// Privileged agents: the unprivileged host user the probe's bwrap runs as (plus the chip
    /// nodes' groups, NpuLaunchPlan::deviceGroups); unset = as the agent.
    std::optional<sandbox::SandboxUser> user;

    /// `--die-with-parent --new-session --unshare-all --unshare-user --cap-drop ALL
    /// --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib
    /// --symlink usr/lib64 /lib64 --proc /proc --dev /dev`.
    static QStringList defaultBaseArgs();
};

/// The per-chip probe (docs/npu.md "Why a per-chip probe"): a chip is usable only if a one-shot
/// sandbox shaped like a real launch, with only that chip bound (as /dev/davinci0) plus the
/// management nodes, can run `npu-smi info` with exit status 0. The host's own view is not trusted:
/// the driver reports chips as healthy that a namespace cannot open (all-or-nothing enumeration of
/// the visible /dev; sciencediscovery.md §6.2).
///
/// Blocking; safe to call from any thread (each call owns its processes). Call it off the
/// event-loop thread: a probe may take up to timeoutMs.
class ChipProbe final {
public:
    ChipProbe(NpuConfig config, ChipProbeOptions options = {});

    /// The bwrap argv (without the bwrap path) for probing @p logicId:
    /// base, passthrough fragment, `--tmpfs /tmp`, a ro-bind of npu-smi when it lies outside
    /// /usr, extraArgs, `--clearenv`, `--setenv`…, `--`, npu-smi, `info`. Empty with @p error
    /// set when the chip cannot be passed through or npu-smi is not found.
    QStringList arguments(int logicId, QString* error) const;

    /// Probes one chip. The failure reason reads
    /// `NPU <id> cannot be opened inside the sandbox: <the driver's meaningful line>`.
    ChipProbeResult probe(int logicId) const;
    /// Probes several chips in parallel (one sandbox each, one shared deadline); results in the
    /// order of @p logicIds.
    QList<ChipProbeResult> probeMany(const QList<int>& logicIds) const;

    /// The line of probe output that explains a failure: log-level noise (`[INFO]`, `[DEBUG]`,
    /// `[EVENT]`, `[WARNING]` tags, console-log-level complaints, dcmi debug lines, table
    /// borders) is skipped; a line with "ret is"/"error code" wins, then one saying something
    /// failed, then the last remaining line. Empty when nothing is left. At most 300 characters.
    static QString meaningfulLine(const QByteArray& output);

private:
    NpuConfig m_config;
    ChipProbeOptions m_options;
    NpuPassthrough m_passthrough;
};

} // namespace runbox::npu
