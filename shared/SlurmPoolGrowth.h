#pragma once

#include "shared/FleetFile.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <functional>

namespace runbox {

class SlurmHosts;
struct SlurmPoolDefinition;

/// Grows a Slurm pool until it has room (docs/contracts.md "Slurm pools"): before a placement
/// that the running hosts' free slots cannot hold, boots one host at a time with sbatch and waits
/// for it (SlurmHosts::waitReady), up to the definition's maxHosts jobs (running, pending and
/// booted ones all count). Blocking.
class SlurmPoolGrowth final {
public:
    /// Free slots of @p hosts (the caller's survey: /v1/health "pool"."free", each host signed
    /// with its own derived token); a host that does not answer counts 0.
    using FreeSlots = std::function<qint64(const QList<FleetAgent>& hosts)>;

    /// Discovers the pool's hosts into @p hosts and boots new ones while their free slots are
    /// below @p count and fewer than maxHosts jobs exist; @p booted gets the new job ids.
    /// Each boot waits up to @p readyTimeoutMs (the job is cancelled when its host is not ready
    /// by then). False with @p error set when squeue or sbatch fail or a boot never came up;
    /// true also when maxHosts stopped the growth short (the placement then fails pool_full).
    static bool growFor(const SlurmPoolDefinition& def, const SlurmHosts& slurm, int count,
                        const FreeSlots& freeSlots, int readyTimeoutMs, QList<FleetAgent>* hosts,
                        QStringList* booted, QString* error);
};

} // namespace runbox
