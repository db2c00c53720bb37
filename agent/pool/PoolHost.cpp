#include "agent/pool/PoolHost.h"

#include <QJsonArray>

#include <algorithm>

namespace runbox::pool {

PoolHost::PoolHost(QString name, qint64 capacity, QStringList labels, qint64 exitWhenIdleS,
                   std::function<int()> heldNow)
    : m_name(std::move(name)), m_capacity(capacity), m_labels(std::move(labels)),
      m_exitWhenIdleS(exitWhenIdleS), m_heldNow(std::move(heldNow)) {}

qint64 PoolHost::freeSlots() const {
    if (m_capacity <= 0)
        return -1;
    const qint64 held = m_heldNow ? m_heldNow() : 0;
    return std::max<qint64>(0, m_capacity - held - m_reserved);
}

int PoolHost::reserve(int asked) {
    asked = std::max(0, asked);
    const qint64 free = freeSlots();
    const int granted = free < 0 ? asked : int(std::min<qint64>(asked, free));
    m_reserved += granted;
    return granted;
}

void PoolHost::release(int granted) {
    m_reserved = std::max<qint64>(0, m_reserved - granted);
}

QJsonObject PoolHost::healthJson() const {
    const qint64 free = freeSlots();
    return {{"name", m_name},
            {"capacity", double(m_capacity)},
            {"workspaces", m_heldNow ? m_heldNow() : 0},
            {"reserved", double(m_reserved)},
            {"free", free < 0 ? QJsonValue() : QJsonValue(double(free))},
            {"labels", QJsonArray::fromStringList(m_labels)},
            {"exitWhenIdleS", double(m_exitWhenIdleS)},
            {"hostNonce",
             m_hostNonce.isEmpty() ? QJsonValue() : QJsonValue(QString::fromLatin1(m_hostNonce))}};
}

} // namespace runbox::pool
