#pragma once

#include <QtGlobal>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace runbox::light {

/// The light tier's one background thread: an epoll loop over every supervisor's control socket,
/// plus one-shot timers (exec timeouts). Handlers run on this thread, one at a time; they must not
/// block. Independent of Qt's event loop, so the agent's threads never wait on a supervisor.
class LightEventLoop final {
public:
    using Handler = std::function<void()>;

    LightEventLoop();
    ~LightEventLoop();
    LightEventLoop(const LightEventLoop&) = delete;
    LightEventLoop& operator=(const LightEventLoop&) = delete;

    /// Calls @p onReadable (level-triggered) whenever @p fd is readable or hung up, until
    /// unwatch(). The fd stays owned by the caller. Returns a key, 0 on failure.
    std::uint64_t watch(int fd, Handler onReadable);
    /// Stops watching (the handler may still be running on the loop thread right now).
    void unwatch(std::uint64_t key);
    /// Runs @p handler once after @p delayMs. Returns a key for cancelTimer().
    std::uint64_t addTimer(qint64 delayMs, Handler handler);
    void cancelTimer(std::uint64_t key);
    /// True on the loop's own thread (where waiting for the loop would deadlock).
    bool isLoopThread() const { return std::this_thread::get_id() == m_thread.get_id(); }

private:
    struct Watch {
        int fd = -1;
        Handler handler;
    };
    using Clock = std::chrono::steady_clock;

    void run();
    void wake();
    int nextTimeoutMs();
    void runDueTimers();

    int m_epoll = -1;
    int m_wakeFd = -1;
    std::atomic<bool> m_stopping{false};
    std::mutex m_mutex;
    std::uint64_t m_nextKey = 1;
    std::unordered_map<std::uint64_t, Watch> m_watches;
    std::multimap<Clock::time_point, std::uint64_t> m_timerQueue;
    std::unordered_map<std::uint64_t, std::pair<Clock::time_point, Handler>> m_timers;
    std::thread m_thread;
};

} // namespace runbox::light
