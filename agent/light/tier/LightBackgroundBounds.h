#pragma once

#include <QHash>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <functional>
#include <optional>
#include <utility>

namespace runbox::bounds {
class BoundsHost;
}
namespace runbox::execution {
class WorkspaceQuotaWatcher;
}
namespace runbox::store {
class QuotaStore;
}
namespace runbox::workspace {
class WorkspaceRegistry;
}

namespace runbox::light {

class LightWorkspaceHost;

/// The bounds of a light workspace between its executions (docs/bounds.md "Light workspaces
/// between executions"). Processes an exec left running (background processes, by design) are
/// bounded as an execution is: by the settings' maxMemoryBytes (the memory watchdog, by the
/// workspace's uid) and maxWorkspaceBytes (a WorkspaceQuotaWatcher), read when the watch starts.
/// A workspace is watched from the end of its last running exec while it has processes besides
/// its supervisor (checked every second), until its next exec begins (whose own bounds then
/// count the whole uid: BoundedBackend) or it is deleted.
///
/// Past a bound with no execution running, every process of the workspace but its supervisor is
/// SIGKILLed (LightWorkspaceHost::killBackground), a `warning:` line is logged, and the workspace
/// keeps `lastBoundsKill` (lastKillJson(); `GET /v1/workspaces`). Until the kill is confirmed (no
/// process left, at most kSettleMs), a new launch waits (whenSettled()), so the next execution
/// starts clean and is not blamed for what was killed. Lives on the agent's main thread.
class LightBackgroundBounds final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LightBackgroundBounds)
public:
    /// What a workspace's processes held at the last scan of its watch: processes besides the
    /// supervisor, and the bytes of all (the supervisor's few hundred KiB included).
    struct Usage {
        int processes = 0;
        qint64 bytes = 0;
    };
    /// How long a launch waits at most for a kill to be confirmed.
    static constexpr int kSettleMs = 2000;

    /// @p bounds may be null or have no watchdog (then only the disk is bounded). All pointers
    /// must outlive this object.
    LightBackgroundBounds(LightWorkspaceHost* host, bounds::BoundsHost* bounds,
                          store::QuotaStore* quotas, workspace::WorkspaceRegistry* workspaces,
                          QObject* parent = nullptr);
    ~LightBackgroundBounds() override;

    /// An exec of @p id began (LightRun launched it): the watch stops. Returns what the
    /// workspace's other processes held at the watch's last scan ({} when it was not watched).
    Usage execBegan(const QString& id);
    /// An exec of @p id ended: with none running and processes left, the watch starts.
    void execEnded(const QString& id);
    /// Calls @p then on this thread once no kill of @p id is being carried out (at once when
    /// none is); never when @p context is gone first.
    void whenSettled(const QString& id, QObject* context, std::function<void()> then);
    /// Whether a kill of @p id's processes is being carried out.
    bool killing(const QString& id) const;
    /// @p id was deleted: its watch and its last kill are forgotten.
    void forget(const QString& id);

    /// `{"bound":"memory"|"disk","reason","at","usedBytes","limitBytes"}` (at: ISO 8601 UTC) of
    /// the last kill of @p id's processes since the agent started; null when there was none.
    QJsonValue lastKillJson(const QString& id) const;
    /// `{"watching":N,"kills":K,"lastKill":{"workspace",…}|null}` for /v1/health `light`.
    QJsonObject healthJson() const;

private:
    struct State {
        int running = 0;     ///< execs of the workspace running now
        int memoryWatch = 0; ///< the watchdog's handle, 0 when none
        QPointer<execution::WorkspaceQuotaWatcher> disk;
        bool watching = false;
        qint64 killStartedMs = 0; ///< 0 when no kill is being carried out
        QList<std::pair<QPointer<QObject>, std::function<void()>>> waiting;
        std::optional<QJsonObject> lastKill;
    };
    void startWatch(const QString& id, State& state);
    /// Ends @p state's watch; returns its last memory usage.
    Usage stopWatch(State& state);
    void onExceeded(const QString& id, const QString& bound, qint64 usedBytes, qint64 limitBytes);
    void settle(const QString& id);
    void check();
    void scheduleCheck();

    LightWorkspaceHost* m_host;
    bounds::BoundsHost* m_bounds;
    store::QuotaStore* m_quotas;
    workspace::WorkspaceRegistry* m_workspaces;
    QHash<QString, State> m_states;
    int m_kills = 0;
    QJsonObject m_lastKill; ///< the agent's last one, with "workspace"
    QTimer m_check;
};

} // namespace runbox::light
