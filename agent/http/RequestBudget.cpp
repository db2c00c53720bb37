#include "agent/http/RequestBudget.h"

namespace runbox::http {

bool RequestBudget::tryReserve(qint64 bytes) {
    if (bytes < 0 || bytes > m_limit - m_reserved)
        return false;
    m_reserved += bytes;
    return true;
}

void RequestBudget::release(qint64 bytes) {
    m_reserved = qMax<qint64>(0, m_reserved - bytes);
}

bool BudgetShare::grow(qint64 bytes) {
    if (m_budget && !m_budget->tryReserve(bytes))
        return false;
    m_bytes += bytes;
    return true;
}

void BudgetShare::release() {
    if (m_budget && m_bytes > 0)
        m_budget->release(m_bytes);
    m_bytes = 0;
}

} // namespace runbox::http
