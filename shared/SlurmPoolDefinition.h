#pragma once

#include <QString>

namespace runbox {

/// A pool whose hosts are Slurm jobs (docs/contracts.md "Slurm pools"): what `runbox pool create
/// NAME --per-host N --slurm PARTITION --max-hosts M` records in
/// `$XDG_CONFIG_HOME/runbox/pools/NAME.slurm.json` (0600, beside the pool's secret) as
/// `{"partition","perHost","maxHosts","idleTimeoutS","script","gres"?}`, and what the pool client
/// boots new hosts with. The file is read strictly: an unknown member or a bad value is an error.
struct SlurmPoolDefinition {
    QString pool;           ///< the pool's name (FleetFile::validName)
    QString partition;      ///< sbatch --partition; 1-64 of A-Za-z0-9_.- (sbatch(1))
    int perHost = 100;      ///< RUNBOX_POOL_CAPACITY of each job: 1..1000000
    int maxHosts = 1;       ///< jobs of the pool at once, booted ones included: 1..10000
    int idleTimeoutS = 600; ///< RUNBOX_EXIT_WHEN_IDLE_S of each job: 1..604800 s
    QString script;         ///< absolute path of runbox-pool-host.sbatch
    /// sbatch --gres of each job ("npu:2"; "" = none): the NPU chips Slurm assigns to a job
    /// are the only ones its agent offers (installer/slurm/README.md). 1-128 of A-Za-z0-9_:,.-
    QString gres;

    /// `$XDG_CONFIG_HOME/runbox/pools/POOL.slurm.json` (else `~/.config/…`).
    static QString defaultPath(const QString& pool);
    /// The installed batch script: `<bin>/../share/runbox/slurm/runbox-pool-host.sbatch`
    /// (installer/CMakeLists.txt), "" when it is not there.
    static QString installedScript();
    /// Reads @p path for pool @p pool. Empty on success, else why (naming the file and member).
    QString load(const QString& path, const QString& pool);
    /// Empty when every field is in range, else why (naming the field).
    QString validate() const;
    /// Writes the file atomically, 0600, its directory made 0700 when missing. Empty or why.
    QString save(const QString& path) const;
};

} // namespace runbox
