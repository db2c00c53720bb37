#pragma once

namespace runbox::console {

/// Exponential reconnect delays: 1 s, 2 s, 4 s … capped at 30 s; reset() after a success.
class ReconnectBackoff final {
public:
    explicit ReconnectBackoff(int firstDelayMs = 1000, int maxDelayMs = 30000)
        : m_first(firstDelayMs), m_max(maxDelayMs) {}

    /// The delay before the next attempt (ms); each call doubles the following one.
    int nextDelayMs() {
        const long long delay = static_cast<long long>(m_first)
                                << (m_attempts < 20 ? m_attempts : 20);
        ++m_attempts;
        return delay > m_max ? m_max : static_cast<int>(delay);
    }
    /// Attempts made since the last reset().
    int attempts() const { return m_attempts; }
    void reset() { m_attempts = 0; }

private:
    int m_first;
    int m_max;
    int m_attempts = 0;
};

} // namespace runbox::console
