#pragma once

#include "shared/FleetFile.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace runbox {

struct SlurmPoolDefinition;

/// One job of a pool as squeue(1) lists it.
struct SlurmJob {
    QString jobId; ///< digits
    QString state; ///< squeue's %T: PENDING, RUNNING, COMPLETING…
    QString nodes; ///< squeue's %N; "" while pending
};

/// The Slurm side of a pool (docs/contracts.md "Slurm pools"): lists the pool's jobs (job name
/// `runbox-pool-POOL`, the user's own), reads the hosts they published, boots one with sbatch
/// and cancels them. Runs squeue(1), sbatch(1) and scancel(1) found on PATH, with argument lists
/// (never a shell), blocking: for the CLI and tests, not the GUI thread. squeue's `--format`
/// is read rather than `--json`: its three fields are the same in every Slurm release, while
/// the JSON's schema follows the openapi plugin's version (v0.0.38 on Debian 12's Slurm 22.05;
/// job_state became a list in later ones).
class SlurmHosts final {
public:
    /// @p hostsDir: where the jobs publish (defaultHostsDir(pool) unless the jobs were given
    /// RUNBOX_POOL_HOSTS_DIR).
    SlurmHosts(QString pool, QString hostsDir);

    /// `runbox-pool-POOL`: the job name every host of the pool runs under.
    static QString jobName(const QString& pool);
    /// `$XDG_CACHE_HOME/runbox/pools/POOL/hosts` (else `~/.cache/…`), as the batch script has it.
    static QString defaultHostsDir(const QString& pool);
    /// The fleet name of job @p jobId's host: `POOL-JOBID` (the host part of its pooled ids).
    static QString hostName(const QString& pool, const QString& jobId);
    /// Splits a host name made by hostName() at its last '-': false unless digits follow it.
    static bool splitHostName(const QString& host, QString* pool, QString* jobId);

    /// The pool's jobs that are not finished (`squeue --me --noheader --name JOBNAME --format
    /// "%i %T %N"`). False with @p error set when squeue is missing, fails or times out.
    bool jobs(QList<SlurmJob>* out, QString* error) const;
    /// The published host of job @p jobId (`HOSTSDIR/JOBID.json`) as a fleet entry
    /// `{"name":POOL-JOBID,"url","pool","fingerprint"}`, checked: its jobId and pool are the
    /// file's, the URL is https://, the fingerprint is one, the nonce well-formed. False with
    /// @p error set when the file is missing or fails a check. Its nonce goes to @p hostNonce.
    bool published(const QString& jobId, FleetAgent* out, QByteArray* hostNonce,
                   QString* error) const;
    /// The running jobs' published hosts, in job order; jobs still starting (no file yet) or
    /// whose file fails a check go to @p notReady as "JOBID: why". False only when squeue
    /// fails (@p error set).
    bool discover(QList<FleetAgent>* hosts, QStringList* notReady, QString* error) const;
    /// Whether @p host answers `GET /health` through its pin showing @p hostNonce.
    static bool answers(const FleetAgent& host, const QByteArray& hostNonce, QString* error,
                        int timeoutMs = 5000);
    /// Submits one host (`sbatch --parsable --job-name JOBNAME --partition P --export
    /// ALL,RUNBOX_POOL=…,RUNBOX_POOL_CAPACITY=…,RUNBOX_EXIT_WHEN_IDLE_S=… SCRIPT`; the rest of
    /// the caller's environment goes along, uid ranges included). False with @p error set.
    bool submit(const SlurmPoolDefinition& def, QString* jobId, QString* error) const;
    /// Waits up to @p timeoutMs for job @p jobId's host to publish and answer with its nonce;
    /// cancels the job (scancel) when it does not, or when the job ends first. False with
    /// @p error set then.
    bool waitReady(const QString& jobId, int timeoutMs, FleetAgent* host, QString* error) const;
    /// Cancels jobs @p jobIds (scancel(1)). False with @p error set.
    bool cancel(const QStringList& jobIds, QString* error) const;

private:
    QString m_pool;
    QString m_hostsDir;
};

} // namespace runbox
