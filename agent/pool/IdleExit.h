#pragma once

#include <QObject>
#include <QTimer>

#include <functional>

namespace runbox::pool {

/// The host-level idle shutdown of a pool host (`--exit-when-idle SECONDS`, docs/contracts.md
/// "Pool hosts"): once @p busy has answered false for @p idleS seconds in a row, counted from
/// construction (an agent started and never used exits too), idle() is emitted once with a
/// sentence saying why. Checked every 250 ms on the event loop; @p busy must be cheap (the
/// agent's: a workspace held, an execution queued or running).
class IdleExit final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(IdleExit)
public:
    IdleExit(qint64 idleS, std::function<bool()> busy, QObject* parent = nullptr);

    /// Milliseconds since the agent became idle, or -1 while busy.
    qint64 idleForMs() const;

Q_SIGNALS:
    /// Emitted once, when the agent has been idle for idleS seconds. @p reason: the log line.
    void idle(const QString& reason);

private:
    void check();

    qint64 m_idleMs;
    std::function<bool()> m_busy;
    qint64 m_idleSinceMs = 0; ///< 0 while busy
    bool m_fired = false;
    QTimer m_timer;
};

} // namespace runbox::pool
