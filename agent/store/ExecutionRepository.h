#pragma once

#include "agent/Error.h"
#include "agent/store/Database.h"
#include "agent/store/ExecutionRecord.h"

#include <QHash>
#include <QList>
#include <QPair>

#include <optional>

namespace runbox::store {

/// Filters and page position for ExecutionRepository::list().
struct ExecutionFilter {
    QString workspaceId;                 ///< empty: every workspace
    QList<ExecutionState> states;        ///< empty: every state
    QList<ExecutionKind> kinds;          ///< empty: every kind (e.g. {Broker}: the NPU jobs)
    std::optional<qint64> createdFromMs; ///< inclusive, ms since the epoch
    std::optional<qint64> createdToMs;   ///< exclusive
    int limit = 100;                     ///< 1..1000
    QString cursor; ///< opaque, from a previous page's nextCursor; empty: first page
};

/// One page of executions, newest first.
struct ExecutionPage {
    QList<ExecutionRecord> items;
    QString nextCursor; ///< empty when this is the last page
};

/// What the executions table keeps of one workspace: the recorded executions (managed,
/// environment builds, NPU broker jobs; sync executions are not recorded) and the newest one's
/// creation time.
struct WorkspaceExecutionSummary {
    qint64 recorded = 0;
    qint64 lastCreatedMs = 0; ///< ms since the epoch; 0 when none
};

/// The executions table. Every method runs on the calling thread's connection and may be called
/// from any thread. Errors: InvalidArgument (400) `invalid_execution_id` / `invalid_cursor` /
/// `invalid_filter`, NotFound (404) `execution_not_found` / `workspace_not_found`, Conflict (409)
/// `illegal_transition`, and the store errors of storeError() (Internal (500) `store_error`,
/// Unavailable (503) `store_busy`).
class ExecutionRepository final {
public:
    explicit ExecutionRepository(const Database& database) : m_database(database) {}

    /// A client-chosen executionId is 1..128 characters of `[A-Za-z0-9_.:-]` starting with a
    /// letter or digit (it names a log file and appears in URL paths).
    static bool isValidExecutionId(const QString& id);
    /// A fresh id: `ex_` + 32 hex digits from the CSPRNG.
    static QString generateExecutionId();

    struct InsertResult {
        ExecutionRecord record; ///< the stored row (the existing one when duplicate)
        bool duplicate = false; ///< the executionId was already used: answer 409 with its id
    };
    /// Creates a `queued` execution. A client executionId is an idempotency key kept forever: if
    /// any execution ever had it, nothing is written and @p out holds the existing record with
    /// duplicate = true (also for a concurrent insert of the same key: the UNIQUE index decides).
    /// An id whose execution retention removed is still taken: duplicate = true, @p out holding
    /// what its tombstone keeps (id, workspace, kind, times; the reason in statusReason).
    /// The workspace must exist and not be deleted (404). Durability::Acknowledged.
    std::optional<Error> insert(const NewExecution& execution, InsertResult* out);

    /// queued → running: sets startedMs (0 → now), clears the queue position and records the
    /// provenance (exact env injected, cwd, argv). 409 from any other state.
    std::optional<Error> markRunning(const QString& executionId, qint64 startedMs,
                                     const QJsonObject& provenance);

    /// → a terminal state (see isLegalTransition(): from running, or from queued for cancelled,
    /// setup_failed, quota_exceeded, lost). The transition is a compare-and-set in SQL, so two
    /// threads finishing the same execution cannot both win: the loser gets 409.
    /// Durability::Acknowledged: once this returns, the exit may be reported to clients. Finish
    /// the log first (LogStore::finish()) so the log is durable before the record says so.
    std::optional<Error> finish(const QString& executionId, const ExecutionOutcome& outcome);

    /// Sets the queue positions of queued executions (others are left alone), in one commit.
    std::optional<Error> setQueuePositions(const QList<QPair<QString, int>>& positions);

    /// Updates the byte counters of a running execution (for the record while it runs).
    std::optional<Error> updateLogBytes(const QString& executionId, const LogByteCounts& bytes);

    /// The record, or NotFound (404) `execution_not_found` (the message says when retention removed
    /// it).
    std::optional<Error> get(const QString& executionId, ExecutionRecord* out) const;

    /// Newest first (created time, then insertion order), keyset-paginated on (createdMs, seq):
    /// the cursor names the last row returned, so rows inserted meanwhile never shift a page
    /// (newer ones sort before the cursor and are not repeated; older ones are not skipped).
    std::optional<Error> list(const ExecutionFilter& filter, ExecutionPage* out) const;
    /// The summary of every workspace that has recorded executions, by workspace id (one
    /// grouped query over the executions_by_workspace index).
    std::optional<Error> summarizeByWorkspace(QHash<QString, WorkspaceExecutionSummary>* out) const;

    /// Start-up recovery: every `running` execution becomes `lost` with @p reason, and every
    /// `queued` one too (the queue lived in the dead agent's memory) with
    /// "<reason> (it had not started)". finishedMs = @p nowMs (0 → now). Nothing is ever re-run.
    /// @p ids receives the ids changed, so their logs can be closed (LogStore::recover()).
    std::optional<Error> markRunningAsLost(const QString& reason, qint64 nowMs, QStringList* ids);

private:
    std::optional<Error> transition(const QString& executionId, ExecutionState to,
                                    const QString& setClause,
                                    const QList<QPair<QString, QVariant>>& bindings,
                                    Durability durability);

    const Database& m_database;
};

} // namespace runbox::store
