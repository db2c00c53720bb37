#include "agent/execution/ExecutionScheduler.h"

#include <QTimer>

namespace runbox::execution {

ExecutionScheduler::ExecutionScheduler(QObject* parent) : QObject(parent) {}

void ExecutionScheduler::setMaxConcurrent(int maxConcurrent) {
    m_maxConcurrent = std::max(0, maxConcurrent);
    admit();
}

void ExecutionScheduler::enqueue(Job job) {
    m_queue.append(std::move(job));
    admit();
}

bool ExecutionScheduler::release(const QString& id) {
    for (qsizetype i = 0; i < m_queue.size(); ++i) {
        if (m_queue[i].id == id) {
            m_queue.removeAt(i);
            Q_EMIT queueChanged();
            return true;
        }
    }
    auto it = m_running.find(id);
    if (it == m_running.end())
        return false;
    if (m_leaseHolder.value(it->workspaceId) == id)
        m_leaseHolder.remove(it->workspaceId);
    if (it->countsTowardsLimit)
        --m_countedRunning;
    m_running.erase(it);
    admit();
    return true;
}

bool ExecutionScheduler::isQueued(const QString& id) const {
    return queuePosition(id) > 0;
}

int ExecutionScheduler::queuePosition(const QString& id) const {
    for (qsizetype i = 0; i < m_queue.size(); ++i)
        if (m_queue[i].id == id)
            return int(i + 1);
    return 0;
}

void ExecutionScheduler::admit() {
    bool changed = false;
    for (qsizetype i = 0; i < m_queue.size();) {
        Job& job = m_queue[i];
        const bool slotFree =
            !job.countsTowardsLimit || m_maxConcurrent == 0 || m_countedRunning < m_maxConcurrent;
        if (!slotFree || m_leaseHolder.contains(job.workspaceId)) {
            ++i;
            continue;
        }
        Job admitted = m_queue.takeAt(i);
        changed = true;
        m_leaseHolder.insert(admitted.workspaceId, admitted.id);
        if (admitted.countsTowardsLimit)
            ++m_countedRunning;
        auto start = std::move(admitted.start);
        m_running.insert(admitted.id, std::move(admitted));
        // Started from the event loop so that callers never re-enter themselves.
        QTimer::singleShot(0, this, [start = std::move(start)] { start(); });
    }
    if (changed)
        Q_EMIT queueChanged();
}

} // namespace runbox::execution
