#include "agent/execution/WorkspaceQuotaWatcher.h"

#include "agent/workspace/WorkspaceFs.h"
#include "agent/workspace/WorkspaceUsage.h"

#include <QElapsedTimer>

namespace runbox::execution {

namespace {
constexpr int kMinIntervalMs = 50; // small trees measure in well under 1 ms
}

WorkspaceQuotaWatcher::WorkspaceQuotaWatcher(std::shared_ptr<const workspace::WorkspaceFs> fs,
                                             qint64 limitBytes, QObject* parent)
    : QObject(parent), m_fs(std::move(fs)), m_limit(limitBytes) {
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &WorkspaceQuotaWatcher::tick);
}

void WorkspaceQuotaWatcher::start() {
    if (m_limit > 0 && m_fs)
        m_timer.start(kMinIntervalMs);
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
    QElapsedTimer pass;
    pass.start();
    qint64 used = 0;
    if (overLimit(&used)) {
        Q_EMIT exceeded(used, m_limit);
        return;
    }
    m_timer.start(int(std::max<qint64>(kMinIntervalMs, 4 * pass.elapsed())));
}

} // namespace runbox::execution
