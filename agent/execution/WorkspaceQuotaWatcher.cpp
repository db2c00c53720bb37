#include "agent/execution/WorkspaceQuotaWatcher.h"

#include "agent/workspace/WorkspaceFs.h"
#include "agent/workspace/WorkspaceUsage.h"
#include "agent/workspace/WorkspaceWriteWatch.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QThreadPool>

namespace runbox::execution {

namespace {
constexpr int kMinIntervalMs = 50; // small trees measure in well under 1 ms
/// After a write: the next pass comes at least this long after the last one ended, and at least
/// 3 passes' time: the agent's event loop spends at most a quarter of its time measuring.
constexpr qint64 kMinWriteGapUs = 1000;

/// The live passes of every watcher, two at once, off the event loop: a tenant's deep or wide
/// tree makes a pass long, and the agent must keep answering meanwhile (docs/bounds.md "Disk").
/// The descriptors their walks hold are reserved (agent/service/OpenFileLimit.cpp).
QThreadPool& livePassPool() {
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool; // never destroyed: a pass may outlive every watcher at exit
        p->setMaxThreadCount(2);
        return p;
    }();
    return *pool;
}

/// One measurement of @p fs against @p limit: over (or at it when @p atLimitCounts), with the
/// bytes in @p used. False as well when the tree changed under the walk (measured next time).
bool measureOnce(const workspace::WorkspaceFs& fs, qint64 limit, bool atLimitCounts, qint64* used) {
    workspace::WorkspaceUsage::Options options;
    options.budgetBytes = limit;
    auto usage = workspace::WorkspaceUsage::measure(fs.rootFd(), options);
    if (!usage.ok())
        return false;
    if (used)
        *used = usage->allocatedBytes;
    return usage->over || (atLimitCounts && usage->allocatedBytes >= limit);
}
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
    return measureOnce(*m_fs, m_limit, atLimitCounts, used);
}

void WorkspaceQuotaWatcher::overLimitLater(std::function<void(bool, qint64)> done) {
    if (m_limit <= 0 || !m_fs)
        return done(false, 0);
    const QPointer<WorkspaceQuotaWatcher> self(this);
    livePassPool().start([self, fs = m_fs, limit = m_limit, done = std::move(done)] {
        qint64 used = 0;
        const bool over = measureOnce(*fs, limit, false, &used);
        QMetaObject::invokeMethod(
            self.data(),
            [self, done, over, used] {
                if (self)
                    done(over, used);
            },
            Qt::QueuedConnection);
    });
}

void WorkspaceQuotaWatcher::tick() {
    if (m_done)
        return;
    if (m_passRunning) { // one pass at a time; another right after it
        m_passWanted = true;
        return;
    }
    m_passRunning = true;
    m_passWanted = false;
    const QPointer<WorkspaceQuotaWatcher> self(this);
    livePassPool().start([self, fs = m_fs, limit = m_limit] {
        QElapsedTimer pass;
        pass.start();
        qint64 used = 0;
        const bool over = measureOnce(*fs, limit, false, &used);
        const qint64 passUs = pass.nsecsElapsed() / 1000;
        QMetaObject::invokeMethod(
            self.data(),
            [self, over, used, passUs] {
                if (self)
                    self->passDone(over, used, passUs);
            },
            Qt::QueuedConnection);
    });
}

void WorkspaceQuotaWatcher::passDone(bool over, qint64 used, qint64 passUs) {
    m_passRunning = false;
    if (m_done)
        return;
    m_lastPassUs = passUs;
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
    if (m_passWanted) // written while the pass ran: the next pass as soon as the gap allows
        onWritten();
}

} // namespace runbox::execution
