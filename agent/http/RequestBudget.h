#pragma once

#include <QtGlobal>

#include <memory>

namespace runbox::http {

/// The global bound on request bytes that the agent holds in memory for requests whose body
/// is buffered (JSON bodies), across all connections: each connection reserves what it is
/// about to hold (the declared Content-Length at once, a chunked body as it arrives) and gives
/// it back when the request is over. A reservation that does not fit is refused, and the
/// connection answers 503 with Retry-After instead of reading the body (docs/contracts.md,
/// "HTTP front door"). Single-threaded: every connection lives on the server's thread.
class RequestBudget final {
public:
    /// @p limitBytes: the most bytes reserved at any time (AgentConfig::maxBufferedRequestBytes).
    explicit RequestBudget(qint64 limitBytes) : m_limit(limitBytes) {}

    /// Reserves @p bytes when they fit under the limit; false (nothing reserved) otherwise.
    bool tryReserve(qint64 bytes);
    /// Gives back @p bytes reserved earlier.
    void release(qint64 bytes);
    qint64 reservedBytes() const { return m_reserved; }
    qint64 limitBytes() const { return m_limit; }

private:
    qint64 m_limit;
    qint64 m_reserved = 0;
};

/// One holder's share of a RequestBudget: what it reserved, given back by release() or its
/// destructor. A null budget means unbounded (every reservation succeeds).
class BudgetShare final {
public:
    explicit BudgetShare(std::shared_ptr<RequestBudget> budget) : m_budget(std::move(budget)) {}
    BudgetShare(const BudgetShare&) = delete;
    BudgetShare& operator=(const BudgetShare&) = delete;
    ~BudgetShare() { release(); }

    /// Adds @p bytes to this share; false when the budget has no room (nothing added).
    bool grow(qint64 bytes);
    /// Gives the whole share back.
    void release();
    qint64 bytes() const { return m_bytes; }

private:
    std::shared_ptr<RequestBudget> m_budget;
    qint64 m_bytes = 0;
};

} // namespace runbox::http
