#pragma once

#include "agent/light/UidPool.h"

#include <QString>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <sys/types.h>
#include <thread>
#include <unordered_set>
#include <vector>

namespace runbox::light {

/// The last net of a light workspace's deletion: finds every process of given uids by scanning
/// /proc/<pid>/status (real, effective, saved and filesystem uid; zombies do not count — they hold
/// nothing but a pid) and SIGKILLs them, rescanning until a scan finds none.
class UidSweeper final {
public:
    /// Host pids of live processes holding one of @p uids.
    static std::vector<pid_t> findProcesses(const std::unordered_set<uid_t>& uids,
                                            std::unordered_set<uid_t>* seen = nullptr);
    /// Kills until a scan finds nothing, at most @p maxPasses scans, pausing @p pauseMs after each
    /// kill round. Returns the uids that still had live processes at the end (empty = converged).
    static std::unordered_set<uid_t> sweep(const std::unordered_set<uid_t>& uids, int maxPasses,
                                           int pauseMs);
};

/// Returns uids to the pool in the background, in batches: one /proc scan confirms many deleted
/// workspaces at once (used when each workspace had its own PID namespace, whose end the kernel
/// already guarantees, so the sweep is a check, not the mechanism). A uid that does not converge
/// is quarantined and reported through the listener. After the first uid of a batch arrives, the
/// thread waits kCoalesceMs for more: a scan reads /proc/<pid>/status of every process of the host
/// (bench/light_pool: ~45 % of the agent main thread's CPU, at 1–4 uids per scan, on a host with
/// ~170 processes), so deletes in bursts share one.
class UidReclaimer final {
public:
    using QuarantineListener = std::function<void(uid_t, const QString& reason)>;

    UidReclaimer(UidPool* pool, int maxPasses, int pauseMs);
    ~UidReclaimer();
    UidReclaimer(const UidReclaimer&) = delete;
    UidReclaimer& operator=(const UidReclaimer&) = delete;

    void setQuarantineListener(QuarantineListener listener);
    /// Queues @p uid: it goes back to the pool after a clean scan.
    void reclaim(uid_t uid);
    /// Blocks until every queued uid has been handled (tests, shutdown).
    void flush();

    static constexpr int kCoalesceMs = 20;

private:
    void run();

    UidPool* const m_pool;
    const int m_maxPasses;
    const int m_pauseMs;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_idle;
    std::vector<uid_t> m_pending;
    bool m_busy = false;
    bool m_stopping = false;
    bool m_flushing = false; ///< flush() waits: no coalescing delay
    QuarantineListener m_listener;
    std::thread m_thread;
};

} // namespace runbox::light
