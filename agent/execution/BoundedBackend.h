#pragma once

#include "agent/bounds/ExecutionCgroup.h"
#include "agent/bounds/MemoryWatchdog.h"
#include "agent/execution/ExecutionBackend.h"
#include "agent/store/QuotaSettings.h"

#include <QTimer>

#include <memory>
#include <optional>

namespace runbox::bounds {
class BoundsHost;
}
namespace runbox::workspace {
class WorkspaceFs;
}

namespace runbox::execution {

class WorkspaceQuotaWatcher;

/// The one watcher of an execution's resource bounds, on every tier and for sync and managed
/// runs alike (docs/bounds.md): wraps the tier's backend and stops it as `memory_exceeded` when
/// its processes (plus its tmpfs mounts) use more than maxMemoryBytes, or as `quota_exceeded` when
/// its workspace grows past maxWorkspaceBytes (live, and once more when it ends; a file stopped by
/// RLIMIT_FSIZE, exit 128+SIGXFSZ, counts too). Memory is read from the execution's cgroup when
/// its launch made one (the kernel enforces memory.max; an OOM kill ends it memory_exceeded),
/// else from the host's watchdog: the PID namespace of the sandbox once the backend names its
/// init, before that (and for light workspaces, which have no namespace) the workspace's uid.
/// The result carries the peaks seen (ExecutionResult::usage).
class BoundedBackend final : public ExecutionBackend {
    Q_OBJECT
public:
    struct Watch {
        store::ExecutionLimits limits; ///< maxMemoryBytes and maxWorkspaceBytes are used
        std::shared_ptr<const workspace::WorkspaceFs> fs;
        std::optional<uid_t> workspaceUid;
        std::unique_ptr<bounds::ExecutionCgroup> cgroup; ///< from BoundsStage, if any
        /// Host directories bounded like the workspace, each on its own (TierBackend).
        QStringList extraDirectories;
    };
    /// Takes @p inner (reparented to this).
    BoundedBackend(ExecutionBackend* inner, bounds::BoundsHost* host, Watch watch,
                   QObject* parent = nullptr);
    ~BoundedBackend() override;

    void start() override;
    void stop(const QString& status, const QString& reason) override;
    void setPaused(bool paused) override { m_inner->setPaused(paused); }
    void skipFileChanges() override { m_inner->skipFileChanges(); }

private:
    void watchMembers(bounds::Membership members, QList<bounds::MemoryWatchdog::TmpfsMount> tmpfs);
    void unwatch();
    void onNamespaceInit(qint64 pid);
    void onMemoryExceeded(const bounds::MemoryWatchdog::Usage& usage);
    void sampleCgroup();
    QString cgroupOomReason() const;
    void onFinished(ExecutionResult result);
    /// The quota checks of a run that ended by itself, one after the other off the event loop
    /// (@p left: the environment prefixes', then the workspace's), then finished().
    void finishAfterQuotaChecks(ExecutionResult result, QList<WorkspaceQuotaWatcher*> left);

    ExecutionBackend* m_inner;
    bounds::BoundsHost* m_host;
    Watch m_watch;
    WorkspaceQuotaWatcher* m_quota = nullptr;
    QList<WorkspaceQuotaWatcher*> m_extraQuotas; ///< one per Watch::extraDirectories
    int m_handle = 0;                            ///< the watchdog's, 0 when none
    bounds::MemoryWatchdog::Usage m_peak;        ///< peaks of earlier watches of this run
    QTimer m_cgroupTimer;
    bool m_finished = false;
};

} // namespace runbox::execution
