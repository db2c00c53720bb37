#pragma once

#include "shared/FleetFile.h"

#include <QJsonArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace runbox::cli {

class ParsedArgs;

/// `runbox pool create NAME --per-host N --slurm PARTITION [--max-hosts M] [--exit-when-idle S]
/// [--sbatch-script FILE]`: makes the pool's secret when missing and records the pool's Slurm
/// definition (shared/SlurmPoolDefinition; docs/contracts.md "Slurm pools"). Sends nothing and
/// submits nothing: `runbox pool add` boots hosts when they are needed. Exit status as the CLI's.
int runSlurmPoolCreate(const ParsedArgs& parsed, const QString& pool, int perHost);

/// The Slurm side of the pool commands for pool @p pool, when it has a Slurm definition.
class SlurmPoolSide final {
public:
    /// Reads @p pool's definition; isSlurm() is false when there is none. A definition that
    /// does not load sets error().
    explicit SlurmPoolSide(const QString& pool);
    /// The pools with a Slurm definition in the user's config dir (`NAME.slurm.json` beside
    /// the secrets, SlurmPoolDefinition::defaultPath), sorted: what `pool ls` without a name
    /// lists besides the fleet file.
    static QStringList definedPools();
    bool isSlurm() const { return m_isSlurm; }
    QString error() const { return m_error; }

    /// The pool's running, published hosts as fleet entries (SlurmHosts::discover); why the
    /// others are not ready in @p notReady. False with @p error set when squeue fails.
    bool hosts(QList<FleetAgent>* out, QStringList* notReady, QString* error) const;
    /// Boots hosts (one at a time, up to maxHosts) until their free slots hold @p count
    /// (SlurmPoolGrowth); new job ids in @p booted. False with @p error set.
    bool growFor(int count, QStringList* booted, QString* error) const;
    /// The pool's jobs as `[{"pool","jobId","state","nodes"}]`, or false with @p error set.
    bool jobs(QJsonArray* out, QString* error) const;
    /// Cancels every job of the pool; @p cancelled gets their ids. False with @p error set.
    bool cancelAll(QStringList* cancelled, QString* error) const;

private:
    QString m_pool;
    bool m_isSlurm = false;
    QString m_error;
};

} // namespace runbox::cli
