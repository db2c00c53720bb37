#include "agent/pool/IdleExit.h"

#include <QDateTime>

namespace runbox::pool {

namespace {

constexpr int kCheckMs = 250;

qint64 nowMs() {
    return QDateTime::currentMSecsSinceEpoch();
}

} // namespace

IdleExit::IdleExit(qint64 idleS, std::function<bool()> busy, QObject* parent)
    : QObject(parent), m_idleMs(idleS * 1000), m_busy(std::move(busy)), m_idleSinceMs(nowMs()) {
    m_timer.setInterval(kCheckMs);
    connect(&m_timer, &QTimer::timeout, this, &IdleExit::check);
    m_timer.start();
}

qint64 IdleExit::idleForMs() const {
    return m_idleSinceMs > 0 ? nowMs() - m_idleSinceMs : -1;
}

void IdleExit::check() {
    if (m_fired)
        return;
    if (m_busy && m_busy()) {
        m_idleSinceMs = 0;
        return;
    }
    if (m_idleSinceMs == 0)
        m_idleSinceMs = nowMs();
    if (nowMs() - m_idleSinceMs < m_idleMs)
        return;
    m_fired = true;
    m_timer.stop();
    Q_EMIT idle(QStringLiteral("no workspace and no queued or running execution for %1 s "
                               "(--exit-when-idle)")
                    .arg(m_idleMs / 1000));
}

} // namespace runbox::pool
