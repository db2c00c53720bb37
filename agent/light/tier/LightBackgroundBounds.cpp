#include "agent/light/tier/LightBackgroundBounds.h"

#include "agent/bounds/BoundsHost.h"
#include "agent/execution/WorkspaceQuotaWatcher.h"
#include "agent/light/LightWorkspaceHost.h"
#include "agent/store/QuotaStore.h"
#include "agent/workspace/WorkspaceRegistry.h"

#include <QDateTime>
#include <QTextStream>

namespace runbox::light {

namespace {

constexpr int kWatchCheckMs = 1000; ///< whether a watched workspace still has processes
constexpr int kKillCheckMs = 20;    ///< whether a kill is over

qint64 nowMs() {
    return QDateTime::currentMSecsSinceEpoch();
}

void logLine(const QString& line) {
    QTextStream(stderr) << QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs) << ' '
                        << line << Qt::endl;
}

} // namespace

LightBackgroundBounds::LightBackgroundBounds(LightWorkspaceHost* host, bounds::BoundsHost* bounds,
                                             store::QuotaStore* quotas,
                                             workspace::WorkspaceRegistry* workspaces,
                                             QObject* parent)
    : QObject(parent), m_host(host), m_bounds(bounds), m_quotas(quotas), m_workspaces(workspaces) {
    m_check.setSingleShot(true);
    connect(&m_check, &QTimer::timeout, this, &LightBackgroundBounds::check);
}

LightBackgroundBounds::~LightBackgroundBounds() {
    for (State& state : m_states)
        stopWatch(state);
}

LightBackgroundBounds::Usage LightBackgroundBounds::execBegan(const QString& id) {
    State& state = m_states[id];
    ++state.running;
    return state.watching ? stopWatch(state) : Usage{};
}

void LightBackgroundBounds::execEnded(const QString& id) {
    const auto it = m_states.find(id);
    if (it == m_states.end())
        return;
    it->running = qMax(0, it->running - 1);
    if (it->running == 0 && !it->watching && it->killStartedMs == 0 && m_host->hasProcesses(id))
        startWatch(id, *it);
    if (it->running == 0 && !it->watching && it->killStartedMs == 0 && it->waiting.isEmpty() &&
        !it->lastKill)
        m_states.erase(it);
    scheduleCheck();
}

void LightBackgroundBounds::startWatch(const QString& id, State& state) {
    const workspace::Workspace* workspace = m_workspaces->find(id);
    if (!workspace)
        return;
    const store::QuotaSettings quotas = m_quotas->current();
    bounds::MemoryWatchdog* watchdog = m_bounds ? m_bounds->watchdog() : nullptr;
    if (quotas.maxMemoryBytes > 0 && watchdog && workspace->uid) {
        bounds::MemoryWatchdog::Watch watch;
        watch.members = {bounds::Membership::By::Uid, quint64(*workspace->uid)};
        watch.limitBytes = quotas.maxMemoryBytes;
        watch.countUnixSockets = true; // docs/bounds.md "Unix socket buffers"
        const qint64 limit = quotas.maxMemoryBytes;
        watch.exceeded = [this, id, limit](const bounds::MemoryWatchdog::Usage& usage) {
            onExceeded(id, QStringLiteral("memory"), usage.currentBytes, limit);
        };
        state.memoryWatch = watchdog->watch(std::move(watch));
    }
    if (quotas.maxWorkspaceBytes > 0 && workspace->fs) {
        auto* disk =
            new execution::WorkspaceQuotaWatcher(workspace->fs, quotas.maxWorkspaceBytes, this);
        connect(disk, &execution::WorkspaceQuotaWatcher::exceeded, this,
                [this, id](qint64 used, qint64 limit) {
                    onExceeded(id, QStringLiteral("disk"), used, limit);
                });
        disk->start();
        state.disk = disk;
    }
    state.watching = state.memoryWatch != 0 || state.disk;
}

LightBackgroundBounds::Usage LightBackgroundBounds::stopWatch(State& state) {
    Usage usage;
    if (state.memoryWatch != 0 && m_bounds && m_bounds->watchdog()) {
        const bounds::MemoryWatchdog::Usage last = m_bounds->watchdog()->unwatch(state.memoryWatch);
        usage.processes = qMax(0, last.processes - 1); // the supervisor is one of the uid's
        usage.bytes = last.currentBytes;
    }
    state.memoryWatch = 0;
    if (state.disk) {
        state.disk->stop();
        state.disk->deleteLater(); // it may be emitting exceeded() right now
        state.disk = nullptr;
    }
    state.watching = false;
    return usage;
}

void LightBackgroundBounds::onExceeded(const QString& id, const QString& bound, qint64 usedBytes,
                                       qint64 limitBytes) {
    const auto it = m_states.find(id);
    if (it == m_states.end() || !it->watching || it->running > 0)
        return;
    stopWatch(*it);
    const QString reason =
        bound == QLatin1String("memory")
            ? QStringLiteral("processes left running by earlier executions used %1 bytes of "
                             "memory, above maxMemoryBytes %2, while no execution ran: they were "
                             "killed")
                  .arg(usedBytes)
                  .arg(limitBytes)
            : QStringLiteral("the workspace grew to %1 bytes, above maxWorkspaceBytes %2, while "
                             "no execution ran: the processes left running by earlier "
                             "executions were killed")
                  .arg(usedBytes)
                  .arg(limitBytes);
    if (!m_host->killBackground(id)) { // no supervisor: nothing of it runs
        if (it->waiting.isEmpty() && !it->lastKill)
            m_states.erase(it);
        return;
    }
    it->killStartedMs = nowMs();
    const QJsonObject kill{{"bound", bound},
                           {"reason", reason},
                           {"at", QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)},
                           {"usedBytes", double(usedBytes)},
                           {"limitBytes", double(limitBytes)}};
    it->lastKill = kill;
    ++m_kills;
    m_lastKill = kill;
    m_lastKill.insert(QStringLiteral("workspace"), id);
    logLine(QStringLiteral("warning: light workspace %1: %2").arg(id, reason));
    scheduleCheck();
}

void LightBackgroundBounds::settle(const QString& id) {
    const auto it = m_states.find(id);
    if (it == m_states.end())
        return;
    it->killStartedMs = 0;
    const bool left = m_host->hasProcesses(id);
    if (left)
        logLine(QStringLiteral("warning: light workspace %1: processes still running %2 ms after "
                               "they were killed for passing a bound; watched again")
                    .arg(id)
                    .arg(kSettleMs));
    if (left && it->running == 0)
        startWatch(id, *it);
    const auto waiting = std::exchange(it->waiting, {});
    // Queued: a launch re-enters this object (execBegan) and may change m_states.
    for (const auto& [context, then] : waiting)
        if (context)
            QMetaObject::invokeMethod(context, then, Qt::QueuedConnection);
}

void LightBackgroundBounds::whenSettled(const QString& id, QObject* context,
                                        std::function<void()> then) {
    const auto it = m_states.find(id);
    if (it == m_states.end() || it->killStartedMs == 0)
        return then();
    it->waiting.append({QPointer<QObject>(context), std::move(then)});
}

bool LightBackgroundBounds::killing(const QString& id) const {
    const auto it = m_states.constFind(id);
    return it != m_states.cend() && it->killStartedMs > 0;
}

void LightBackgroundBounds::forget(const QString& id) {
    const auto it = m_states.find(id);
    if (it == m_states.end())
        return;
    stopWatch(*it);
    const auto waiting = std::exchange(it->waiting, {});
    m_states.erase(it);
    for (const auto& [context, then] : waiting) // they meet the racing delete (404/409)
        if (context)
            QMetaObject::invokeMethod(context, then, Qt::QueuedConnection);
}

void LightBackgroundBounds::check() {
    const qint64 now = nowMs();
    for (const QString& id : m_states.keys()) {
        const auto it = m_states.find(id);
        if (it == m_states.end())
            continue;
        if (it->killStartedMs > 0) {
            if (!m_host->hasProcesses(id) || now - it->killStartedMs >= kSettleMs)
                settle(id);
        } else if (it->watching && !m_host->hasProcesses(id)) {
            stopWatch(*it); // nothing left to bound
            if (it->running == 0 && it->waiting.isEmpty() && !it->lastKill)
                m_states.erase(it);
        }
    }
    scheduleCheck();
}

void LightBackgroundBounds::scheduleCheck() {
    bool watching = false;
    for (const State& state : std::as_const(m_states)) {
        if (state.killStartedMs > 0) {
            m_check.start(kKillCheckMs);
            return;
        }
        watching = watching || state.watching;
    }
    if (!watching)
        m_check.stop();
    else if (!m_check.isActive() || m_check.remainingTime() > kWatchCheckMs)
        m_check.start(kWatchCheckMs);
}

QJsonValue LightBackgroundBounds::lastKillJson(const QString& id) const {
    const auto it = m_states.constFind(id);
    if (it == m_states.cend() || !it->lastKill)
        return QJsonValue::Null;
    return *it->lastKill;
}

QJsonObject LightBackgroundBounds::healthJson() const {
    int watching = 0;
    for (const State& state : m_states)
        watching += state.watching ? 1 : 0;
    return {{"watching", watching},
            {"kills", m_kills},
            {"lastKill", m_lastKill.isEmpty() ? QJsonValue(QJsonValue::Null) : m_lastKill}};
}

} // namespace runbox::light
