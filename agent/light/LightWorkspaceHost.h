#pragma once

#include "agent/Error.h"
#include "agent/light/LightEventLoop.h"
#include "agent/light/LightExecution.h"
#include "agent/light/LightTypes.h"
#include "agent/light/SpareHomes.h"
#include "agent/light/UidPool.h"
#include "agent/light/UidSweeper.h"
#include "agent/light/ZygoteProcess.h"

#include <QHash>
#include <QString>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace runbox::light {

class SupervisorChannel;

/// Light workspaces (docs/light-workspaces.md): many per host, each a uid from the pool, a 0700
/// home and ONE Landlock domain held by a per-workspace supervisor (forked by the zygote in the
/// background after create(), or at the first exec), so the workspace's own background processes
/// stay reachable from its later execs while everything else is out of scope. Thread-safe; every
/// call may come from any thread except the light event thread (where remove() refuses to wait on
/// itself).
///
/// Order of use: construct → start() → create()/exec()/remove() → destroy (removes everything).
/// Errors are runbox::Error (docs/contracts.md "Errors"); the statuses below are their kinds'.
class LightWorkspaceHost final {
public:
    explicit LightWorkspaceHost(LightHostConfig config);
    ~LightWorkspaceHost();
    LightWorkspaceHost(const LightWorkspaceHost&) = delete;
    LightWorkspaceHost& operator=(const LightWorkspaceHost&) = delete;

    /// What start() would conclude without starting anything: privileges (LightPrivileges),
    /// Landlock ABI ≥ config.minLandlockAbi, the supervisor binary, the uid range.
    static LightAvailability probe(const LightHostConfig& config);

    /// Probes, prepares the workspace root (removing homes left by a previous run), starts the
    /// zygote and, with config.selfTest, runs `true` in a scratch workspace checking the
    /// confinement it reports. False (see availability()) when light workspaces must stay off.
    bool start();
    LightAvailability availability() const;

    /// Creates up to @p count (1..kMaxCreateCount) workspaces. Capacity and uids are reserved
    /// atomically: what does not fit is counted in result->rejected (not an error). Errors: 400
    /// invalid_count / invalid_env / invalid_limit / invalid_network_policy, 403 policy_forbidden,
    /// 503 light_unavailable, 500 when no home could be created. The most workspaces one create()
    /// makes (its `count`, 1..kMaxCreateCount).
    static constexpr int kMaxCreateCount = 4096;
    std::optional<Error> create(const LightWorkspaceOptions& options, int count,
                                LightCreateResult* result);

    /// Starts @p request in workspace @p id. Errors: 404 workspace_not_found, 409
    /// workspace_deleting / light_policy_widened, 400 invalid_*, 413 request_too_large, 503
    /// light_unavailable. A sandbox that cannot be built gives an execution that finishes with
    /// Kind::SetupFailed (nothing ran), not an error.
    std::shared_ptr<LightExecution> exec(const QString& id, const LightExecRequest& request,
                                         Error* error);

    /// Whether workspace @p id has processes besides its supervisor: shepherds of running execs
    /// or processes earlier execs left running (the supervisor's children,
    /// /proc/PID/task/PID/children, proc(5)). False when its supervisor is not running.
    bool hasProcesses(const QString& id) const;
    /// SIGKILLs every process of workspace @p id outside a running exec's tree (what earlier
    /// execs left running), through its supervisor; an exec sent after this starts once they are
    /// killed. False when it has no running supervisor (then no process of it runs).
    bool killBackground(const QString& id);

    /// Deletes @p id: cancels its execs, SIGKILLs its supervisor (with a PID namespace: all of
    /// its processes, confirmed through the pidfd), sweeps its uid, removes its home through fds,
    /// then returns the uid to the pool. A uid whose cleanup did not converge is quarantined and
    /// the answer is 500 cleanup_failed with the reason. 404 when unknown, 409 when already being
    /// deleted.
    std::optional<Error> remove(const QString& id);
    /// Deletes every workspace; returns the errors (empty when all went well).
    QList<Error> removeAll();

    /// Whether workspaces can get LightWorkspaceOptions::egressGateway here: each needs a
    /// network namespace, made by the root zygote (true after a start() as root).
    bool supportsEgressGateway() const { return m_privateProc; }
    /// Whether workspaces can get LightWorkspaceOptions::environmentPrefix here: each needs a
    /// mount namespace, made by the root zygote (true after a start() as root with an
    /// environment root configured).
    bool supportsEnvironments() const {
        return m_privateProc && !m_config.environmentRoot.isEmpty();
    }

    std::optional<LightWorkspaceInfo> info(const QString& id) const;
    QStringList ids() const;
    int count() const;
    void setCapacity(int capacity);
    /// A dup of the home's O_PATH directory fd (for the file API's openat walks), or −1.
    int openHome(const QString& id) const;

    UidPool* uidPool() { return m_pool.get(); }
    /// Waits until uids handed to the background sweep are back in the pool (or quarantined).
    void flushReclaims();
    void setQuarantineListener(UidReclaimer::QuarantineListener listener);

private:
    struct Workspace;

    std::shared_ptr<Workspace> find(const QString& id) const;
    std::shared_ptr<SupervisorChannel> ensureChannel(Workspace& workspace, QString* error);
    bool runSelfTest(QString* error);
    LightWorkspaceInfo describe(const Workspace& workspace) const;
    void warmLoop();

    const LightHostConfig m_config;
    LightAvailability m_availability;
    bool m_pidNamespace = false;
    bool m_privateProc = false;
    int m_rootFd = -1;
    int m_devNull = -1;
    std::unique_ptr<UidPool> m_pool;
    std::unique_ptr<UidReclaimer> m_reclaimer;
    ZygoteProcess m_zygote;
    mutable std::mutex m_mutex;
    QHash<QString, std::shared_ptr<Workspace>> m_workspaces;
    int m_reserved = 0;
    int m_capacity = 0;
    std::atomic<std::uint64_t> m_nextExecId{1};
    std::mutex m_warmMutex; // background supervisor start (config.prestartSupervisors)
    std::condition_variable m_warmWake;
    std::deque<QString> m_warmQueue;
    bool m_stopping = false;
    std::thread m_warmer;
    std::unique_ptr<SpareHomes> m_spares;
    LightEventLoop m_loop; // last: destroyed first, so no handler outlives the rest
};

} // namespace runbox::light
