#pragma once

#include "agent/Error.h"
#include "agent/egress/EgressDecision.h"

#include <QList>
#include <QString>

#include <optional>

namespace runbox::store {
class Database;
}

namespace runbox::egress {

/// The `egress_decisions` table (schema migrations 3 and 4): every EgressDecision of every
/// execution, append-only (triggers refuse UPDATE and DELETE), so `GET /v1/executions/{id}/egress`
/// and the log stream's replay read what the gateway decided, also after a restart. Thread-safe.
/// Errors: the store's, and InvalidArgument (400) invalid_filter for a limit outside 1..10000.
class EgressDecisionStore final {
public:
    explicit EgressDecisionStore(const store::Database& database) : m_database(database) {}

    /// Appends @p decision of an execution in @p workspaceId (one commit, Durability::Normal:
    /// it survives a crash of the agent; a decision is never re-derived).
    std::optional<Error> append(const EgressDecision& decision, const QString& workspaceId);

    /// The decisions of @p executionId in the order they were made (at most @p limit, 1..10000).
    std::optional<Error> list(const QString& executionId, int limit,
                              QList<EgressDecision>* out) const;

    /// The decisions recorded with @p workspaceId (its light workspace connections and its
    /// executions'), in the order they were made (at most @p limit, 1..10000); each carries
    /// workspaceId.
    std::optional<Error> listByWorkspace(const QString& workspaceId, int limit,
                                         QList<EgressDecision>* out) const;

    /// The workspace recorded with the decisions of @p executionId ("" when there are none):
    /// who may read them when the execution has no record (sync executions).
    std::optional<Error> workspaceOf(const QString& executionId, QString* out) const;

private:
    /// Rows whose @p column (execution_id or workspace_id) is @p value.
    std::optional<Error> select(const char* column, const QString& value, int limit,
                                QList<EgressDecision>* out) const;

    const store::Database& m_database;
};

} // namespace runbox::egress
