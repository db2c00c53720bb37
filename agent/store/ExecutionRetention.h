#pragma once

#include "agent/Error.h"
#include "agent/store/Database.h"
#include "agent/store/SettingsRepository.h"

#include <QJsonObject>
#include <QObject>
#include <QStringList>
#include <QTimer>

#include <functional>
#include <optional>

namespace runbox::store {

class LogStore;

/// What retention keeps (RUNBOX_EXECUTION_RETENTION_DAYS, RUNBOX_LOG_STORE_MAX_BYTES).
struct RetentionPolicy {
    static constexpr qint64 kDefaultMaxBytes = qint64(20) << 30; ///< 20 GiB
    qint64 retentionDays = 30;          ///< finished longer ago are removed; 0 = kept forever
    qint64 maxBytes = kDefaultMaxBytes; ///< the log store's bound; 0 = unlimited
};

/// Removes finished executions — record, log files, output rows — oldest finish first, once they
/// finished more than RetentionPolicy::retentionDays ago ("age") and while the log store holds
/// more than RetentionPolicy::maxBytes ("size"). A queued or running execution is never removed
/// (the schema refuses it too). The id of each removed execution stays in `execution_tombstones`
/// forever, so it is still an idempotency key (ExecutionRepository::insert() answers duplicate)
/// and GET answers 404 saying when it was removed. Each pass (one transaction of at most
/// kBatch removals, for one reason) writes one audit row (kAuditKey, tokenId kAuditTokenId),
/// `before` `{"executions","bytes"}`, `after` the same plus
/// `{"removed","bytesFreed","reason","retentionDays","maxBytes","oldestFinishedAt",
/// "newestFinishedAt"}`, committed with the removals. Log files are deleted after the commit;
/// an interrupted deletion is finished by initialize().
///
/// The log store's size is measured once by initialize() (one listing of the logs directory),
/// then kept as a running total: + a log's file bytes when it finishes (LogStore::finished), −
/// what a removal frees. So `bytes` counts finished logs (a running one counts once it ends).
///
/// Lives on the agent's thread (the thread of the LogStore's writers); the clock is injectable
/// for tests (a clock jump in a test double). docs/STORE.md "Retention".
class ExecutionRetention final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecutionRetention)
public:
    /// ms since the epoch, now.
    using Clock = std::function<qint64()>;
    static constexpr const char* kAuditKey = "executions.retention";
    static constexpr const char* kAuditTokenId = "agent:retention";
    static constexpr int kBatch = 500;                     ///< removals per pass at most
    static constexpr int kDefaultIntervalMs = 3600 * 1000; ///< the timer's period

    /// @p clock empty: the system clock.
    ExecutionRetention(const Database& database, LogStore* logs, RetentionPolicy policy,
                       Clock clock = {}, QObject* parent = nullptr);
    ~ExecutionRetention() override;

    /// Start-up, after recovery (nothing running yet): deletes the log files of removals a crash
    /// interrupted, measures the log store and counts the finished executions.
    std::optional<Error> initialize();
    /// Runs a pass now, then every @p intervalMs, and after an execution finishes while the log
    /// store is over its bound (at the next turn of the event loop, once its record is final).
    void start(int intervalMs = kDefaultIntervalMs);

    /// What one runNow() removed.
    struct Result {
        int removedForAge = 0;
        int removedForSize = 0;
        qint64 bytesFreed = 0;
        QList<AuditEntry> audit; ///< the rows written, one per pass
    };
    /// Removes what the policy says is due now (age first, then size). Errors: store errors
    /// (what was committed before stays removed).
    std::optional<Error> runNow(Result* result = nullptr);

    /// A log finished: adds its bytes to the total (connected to LogStore::finished by start()).
    void noteLogFinished(const QString& executionId);

    const RetentionPolicy& policy() const { return m_policy; }
    /// The log store's bytes (finished logs) and the finished executions kept, as tracked.
    qint64 bytes() const { return m_bytes; }
    qint64 executions() const { return m_executions; }
    /// `{"bytes","executions","retentionDays","maxBytes"}` for /v1/health `logStore`.
    QJsonObject healthJson() const;

private:
    struct Candidate;
    bool oldestFinished(std::optional<qint64> finishedBeforeMs, QList<Candidate>* out,
                        Error* error) const;
    std::optional<Error> removePass(const QList<Candidate>& batch, const QString& reason,
                                    qint64 nowMs, Result* result);
    void markLogsRemoved(const QStringList& ids);
    void scheduleSizePass();

    const Database& m_database;
    LogStore* m_logs;
    RetentionPolicy m_policy;
    Clock m_clock;
    QTimer m_timer;
    qint64 m_bytes = 0;
    qint64 m_executions = 0;
    bool m_sizePassScheduled = false;
};

} // namespace runbox::store
