#include "agent/execution/WorkspaceQuotaWatcher.h"

#include "agent/workspace/WorkspaceFs.h"
#include "agent/workspace/WorkspaceUsage.h"
#include "agent/workspace/WorkspaceWriteWatch.h"

#include <QElapsedTimer>
#include <QPointer>

namespace runbox::execution {

namespace {
constexpr int kMinIntervalMs = 50; // small trees measure in well under 1 ms
/// After a write: the next pass comes at least this long after the last one ended, and at least
/// 3 passes' time: the agent's event loop spends at most a quarter of its time measuring.
constexpr qint64 kMinWriteGapUs = 1000;
} // namespace

WorkspaceQuotaWatcher::WorkspaceQuotaWatcher(std::shared_ptr<const workspace::WorkspaceFs> fs,
                                             qint64 limitBytes, QObject* parent)
    : QObject(parent), m_fs(std::move(fs)), m_limit(limitBytes), m_intervalMs(kMinIntervalMs) {
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &WorkspaceQuotaWatcher::tick);
}

WorkspaceQuotaWatcher::~WorkspaceQuotaWatcher() = default;

void WorkspaceQuotaWatcher::start() {
    if (m_limit <= 0 || !m_fs)
        return;
    m_done = false;
    m_writes = std::make_unique<workspace::WorkspaceWriteWatch>(m_fs->rootFd());
    connect(m_writes.get(), &workspace::WorkspaceWriteWatch::written, this,
            &WorkspaceQuotaWatcher::onWritten);
    if (!m_writes->start())
        m_writes.reset(); // no inotify instance left: the timer alone (logged by the watch)
    m_sincePass.start();
    m_timer.start(m_intervalMs);
}

void WorkspaceQuotaWatcher::stop() {
    m_done = true;
    m_timer.stop();
    m_writes.reset();
}

int WorkspaceQuotaWatcher::writeWatchCount() const {
    return m_writes ? m_writes->watchCount() : 0;
}

bool WorkspaceQuotaWatcher::writeWatchComplete() const {
    return m_writes && m_writes->complete();
}

void WorkspaceQuotaWatcher::onWritten() {
    if (m_done)
        return;
    const qint64 gapUs = std::max(kMinWriteGapUs, 3 * m_lastPassUs);
    const qint64 sinceUs = m_sincePass.nsecsElapsed() / 1000;
    if (sinceUs >= gapUs)
        return tick();
    const int waitMs = int((gapUs - sinceUs + 999) / 1000);
    if (m_timer.remainingTime() > waitMs)
        m_timer.start(waitMs);
}

bool WorkspaceQuotaWatcher::overLimit(qint64* used) {
    return measure(false, used);
}

bool WorkspaceQuotaWatcher::full(qint64* used) {
    return measure(true, used);
}

bool WorkspaceQuotaWatcher::measure(bool atLimitCounts, qint64* used) {
    if (m_limit <= 0 || !m_fs)
        return false;
    workspace::WorkspaceUsage::Options options;
    options.budgetBytes = m_limit;
    auto usage = workspace::WorkspaceUsage::measure(m_fs->rootFd(), options);
    if (!usage.ok())
        return false; // a tree changing under us: measured again next tick
    if (used)
        *used = usage->allocatedBytes;
    return usage->over || (atLimitCounts && usage->allocatedBytes >= m_limit);
}

void WorkspaceQuotaWatcher::tick() {
    if (m_done)
        return;
    QElapsedTimer pass;
    pass.start();
    qint64 used = 0;
    const bool over = overLimit(&used);
    m_lastPassUs = pass.nsecsElapsed() / 1000;
    m_sincePass.restart();
    if (over) {
        // Reported before the write watch goes: the run is stopped first.
        m_done = true;
        m_timer.stop();
        const QPointer<WorkspaceQuotaWatcher> self(this);
        Q_EMIT exceeded(used, m_limit);
        if (self)
            stop();
        return;
    }
    m_timer.start(int(std::max<qint64>(m_intervalMs, 4 * m_lastPassUs / 1000)));
}

} // namespace runbox::execution
