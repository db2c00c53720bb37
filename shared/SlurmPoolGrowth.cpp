#include "shared/SlurmPoolGrowth.h"

#include "shared/SlurmHosts.h"
#include "shared/SlurmPoolDefinition.h"

namespace runbox {

bool SlurmPoolGrowth::growFor(const SlurmPoolDefinition& def, const SlurmHosts& slurm, int count,
                              const FreeSlots& freeSlots, int readyTimeoutMs,
                              QList<FleetAgent>* hosts, QStringList* booted, QString* error) {
    QStringList notReady;
    if (!slurm.discover(hosts, &notReady, error))
        return false;
    QList<SlurmJob> jobs;
    if (!slurm.jobs(&jobs, error))
        return false;
    qint64 free = hosts->isEmpty() ? 0 : freeSlots(*hosts);
    qsizetype jobCount = jobs.size();
    // One boot at a time: each new host is waited for before the next is asked for, so a
    // client never has more than one job starting (docs/contracts.md "Slurm pools").
    while (free < count && jobCount < def.maxHosts) {
        QString jobId;
        if (!slurm.submit(def, &jobId, error))
            return false;
        ++jobCount;
        FleetAgent host;
        if (!slurm.waitReady(jobId, readyTimeoutMs, &host, error))
            return false;
        booted->append(jobId);
        hosts->append(host);
        free += def.perHost; // a new host is empty; its own `rejected` stays the authority
    }
    return true;
}

} // namespace runbox
