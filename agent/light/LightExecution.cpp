#include "agent/light/LightExecution.h"

#include "agent/light/SupervisorChannel.h"

namespace runbox::light {

QString LightExitStatus::stateName() const {
    if (timedOut)
        return QStringLiteral("timed_out");
    if (cancelled)
        return QStringLiteral("cancelled");
    switch (kind) {
    case Kind::Exited:
        return exitCode == 0 ? QStringLiteral("completed") : QStringLiteral("failed");
    case Kind::Signaled:
    case Kind::SpawnFailed:
        return QStringLiteral("failed");
    case Kind::SetupFailed:
        return QStringLiteral("setup_failed");
    case Kind::Lost:
        break;
    }
    return QStringLiteral("lost");
}

LightExecution::LightExecution(std::uint64_t id, QString workspaceId)
    : m_id(id), m_workspaceId(std::move(workspaceId)), m_started(std::chrono::steady_clock::now()) {
}

int LightExecution::pid() const {
    std::lock_guard lock(m_mutex);
    return m_pid;
}

bool LightExecution::isFinished() const {
    std::lock_guard lock(m_mutex);
    return m_finished;
}

bool LightExecution::waitForFinished(int timeoutMs) const {
    std::unique_lock lock(m_mutex);
    if (timeoutMs < 0) {
        m_finishedCondition.wait(lock, [this] { return m_finished; });
        return true;
    }
    return m_finishedCondition.wait_for(lock, std::chrono::milliseconds(timeoutMs),
                                        [this] { return m_finished; });
}

LightExitStatus LightExecution::status() const {
    std::lock_guard lock(m_mutex);
    return m_status;
}

void LightExecution::cancel() {
    requestKill(false);
}

void LightExecution::requestKill(bool timedOut) {
    std::shared_ptr<SupervisorChannel> channel;
    {
        std::lock_guard lock(m_mutex);
        if (m_finished || m_timedOut || m_cancelled)
            return;
        (timedOut ? m_timedOut : m_cancelled) = true;
        channel = m_channel.lock();
    }
    if (channel)
        channel->requestKill(m_id);
}

void LightExecution::markCancelled() {
    std::lock_guard lock(m_mutex);
    if (!m_finished && !m_timedOut)
        m_cancelled = true;
}

void LightExecution::addFinishHook(std::function<void()> hook) {
    {
        std::lock_guard lock(m_mutex);
        if (!m_finished) {
            m_hooks.push_back(std::move(hook));
            return;
        }
    }
    hook();
}

void LightExecution::onFinished(FinishedCallback callback) {
    LightExitStatus status;
    {
        std::lock_guard lock(m_mutex);
        if (!m_finished) {
            m_callback = std::move(callback);
            return;
        }
        status = m_status;
    }
    callback(status);
}

void LightExecution::attach(const std::shared_ptr<SupervisorChannel>& channel) {
    std::lock_guard lock(m_mutex);
    m_channel = channel;
}

void LightExecution::markStarted(int pid) {
    std::lock_guard lock(m_mutex);
    m_pid = pid;
}

void LightExecution::finish(LightExitStatus status) {
    FinishedCallback callback;
    std::vector<std::function<void()>> hooks;
    {
        std::lock_guard lock(m_mutex);
        if (m_finished)
            return;
        status.timedOut = m_timedOut;
        status.cancelled = status.cancelled || m_cancelled;
        status.durationMs = std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::steady_clock::now() - m_started)
                                .count();
        m_status = status;
        m_finished = true;
        callback = std::move(m_callback);
        m_callback = nullptr;
        hooks.swap(m_hooks);
    }
    m_finishedCondition.notify_all();
    for (const auto& hook : hooks)
        hook();
    if (callback)
        callback(status);
}

} // namespace runbox::light
