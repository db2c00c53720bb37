#include "agent/light/LightEventLoop.h"

#include <cerrno>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace runbox::light {

LightEventLoop::LightEventLoop() {
    m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
    m_wakeFd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = 0; // key 0 = the wake fd
    ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_wakeFd, &event);
    m_thread = std::thread([this] { run(); });
}

LightEventLoop::~LightEventLoop() {
    m_stopping = true;
    wake();
    if (m_thread.joinable())
        m_thread.join();
    ::close(m_wakeFd);
    ::close(m_epoll);
}

void LightEventLoop::wake() {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t ignored = ::write(m_wakeFd, &one, sizeof(one));
}

std::uint64_t LightEventLoop::watch(int fd, Handler onReadable) {
    std::lock_guard lock(m_mutex);
    const std::uint64_t key = m_nextKey++;
    epoll_event event{};
    event.events = EPOLLIN | EPOLLRDHUP;
    event.data.u64 = key;
    if (::epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &event) != 0)
        return 0;
    m_watches.emplace(key, Watch{fd, std::move(onReadable)});
    return key;
}

void LightEventLoop::unwatch(std::uint64_t key) {
    std::lock_guard lock(m_mutex);
    const auto it = m_watches.find(key);
    if (it == m_watches.end())
        return;
    ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, it->second.fd, nullptr);
    m_watches.erase(it);
}

std::uint64_t LightEventLoop::addTimer(qint64 delayMs, Handler handler) {
    const Clock::time_point due =
        Clock::now() + std::chrono::milliseconds(qMax<qint64>(0, delayMs));
    std::uint64_t key;
    bool earliest;
    {
        std::lock_guard lock(m_mutex);
        key = m_nextKey++;
        earliest = m_timerQueue.empty() || due < m_timerQueue.begin()->first;
        m_timerQueue.emplace(due, key);
        m_timers.emplace(key, std::make_pair(due, std::move(handler)));
    }
    if (earliest)
        wake();
    return key;
}

void LightEventLoop::cancelTimer(std::uint64_t key) {
    std::lock_guard lock(m_mutex);
    const auto it = m_timers.find(key);
    if (it == m_timers.end())
        return;
    const auto range = m_timerQueue.equal_range(it->second.first);
    for (auto entry = range.first; entry != range.second; ++entry) {
        if (entry->second == key) {
            m_timerQueue.erase(entry);
            break;
        }
    }
    m_timers.erase(it);
}

int LightEventLoop::nextTimeoutMs() {
    std::lock_guard lock(m_mutex);
    if (m_timerQueue.empty())
        return -1;
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(
        m_timerQueue.begin()->first - Clock::now());
    return wait.count() <= 0 ? 0 : static_cast<int>(qMin<qint64>(wait.count() + 1, 60000));
}

void LightEventLoop::runDueTimers() {
    for (;;) {
        Handler handler;
        {
            std::lock_guard lock(m_mutex);
            if (m_timerQueue.empty() || m_timerQueue.begin()->first > Clock::now())
                return;
            const std::uint64_t key = m_timerQueue.begin()->second;
            m_timerQueue.erase(m_timerQueue.begin());
            const auto it = m_timers.find(key);
            if (it == m_timers.end())
                continue;
            handler = std::move(it->second.second);
            m_timers.erase(it);
        }
        handler();
    }
}

void LightEventLoop::run() {
    epoll_event events[64];
    while (!m_stopping) {
        const int count = ::epoll_wait(m_epoll, events, 64, nextTimeoutMs());
        if (count < 0 && errno != EINTR)
            break;
        for (int i = 0; i < count; ++i) {
            const std::uint64_t key = events[i].data.u64;
            if (key == 0) {
                std::uint64_t drained;
                [[maybe_unused]] const ssize_t ignored =
                    ::read(m_wakeFd, &drained, sizeof(drained));
                continue;
            }
            Handler handler;
            {
                std::lock_guard lock(m_mutex);
                const auto it = m_watches.find(key);
                if (it == m_watches.end())
                    continue;
                handler = it->second.handler; // copy: the watch may go away while it runs
            }
            handler();
        }
        runDueTimers();
    }
}

} // namespace runbox::light
