#pragma once

#include "agent/store/ExecutionState.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace runbox::store {

/// What an execution runs: `shell` (bash script on stdin), `python`, `r`, an `argv` vector, or a
/// host NPU `broker` job (an operator workload run by the broker, docs/npu.md "Host broker": same
/// record, log, listing and cancel as the others; created only through `POST /v1/npu/jobs`).
/// What an execution ran: a request's kind, a host NPU broker job (docs/npu.md), or the build of
/// a science environment's revision (`provision`, docs/environments.md).
enum class ExecutionKind { Shell, Python, R, Argv, Broker, Provision };

QString toString(ExecutionKind kind);
std::optional<ExecutionKind> executionKindFromString(const QString& name);

/// Whether @p id may be an execution id: 1..128 characters of `[A-Za-z0-9_.:-]` starting with a
/// letter or digit. Ids name log files (`<id>.log`) and appear in URL paths, so nothing else is
/// allowed (no `/`, no leading `.`).
bool isValidExecutionId(const QString& id);

/// `2024-05-01T12:34:56.789Z` (UTC, milliseconds) for ms since the epoch.
QString isoTimestamp(qint64 msSinceEpoch);

/// Output byte counts of an execution's log (see LogStore).
struct LogByteCounts {
    qint64 stdoutBytes = 0;  ///< bytes the process wrote to stdout
    qint64 stderrBytes = 0;  ///< bytes the process wrote to stderr
    qint64 droppedBytes = 0; ///< bytes dropped by retention (between head and tail)

    /// `{"stdout":N,"stderr":N,"dropped":N,"retentionTruncated":bool}`.
    QJsonObject toJson() const;
    bool operator==(const LogByteCounts&) const = default;
};

/// What an execution used, from the bounds watcher's samples (docs/bounds.md) and the wait4(2)
/// rusage of its sandbox; absent (null in JSON) for records written before it was measured.
struct ExecutionUsage {
    std::optional<qint64> peakMemoryBytes; ///< highest sampled memory of the tree + its tmpfs
    std::optional<qint64> cpuUserMs;       ///< user CPU of the tree, ms
    std::optional<qint64> cpuSystemMs;     ///< system CPU of the tree, ms
    std::optional<int> peakProcesses;      ///< most processes seen at once

    /// `{"peakMemoryBytes","cpuUserMs","cpuSystemMs","maxProcesses"}`, each a number or null.
    QJsonObject toJson() const;
    bool operator==(const ExecutionUsage&) const = default;
};

/// One row of the executions table.
struct ExecutionRecord {
    QString executionId;           ///< the API id: client-chosen idempotency key or generated
    bool clientSuppliedId = false; ///< whether the client chose executionId
    QString workspaceId;
    ExecutionKind kind = ExecutionKind::Shell;
    ExecutionState state = ExecutionState::Queued;
    std::optional<int> queuePosition; ///< 0 = next to start; only while queued
    qint64 createdMs = 0;             ///< ms since the epoch
    std::optional<qint64> startedMs;
    std::optional<qint64> finishedMs;
    std::optional<int> exitCode; ///< when the process exited
    std::optional<int> signal;   ///< when a signal ended it (e.g. 9)
    std::optional<qint64> durationMs;
    QString statusReason; ///< human text for non-`completed` ends ("timed out after 5000 ms")
    /// The settings it runs under, fixed at creation (its permission epoch, docs/contracts.md
    /// "Workspaces and executions"), e.g.
    /// `{"networkPolicy":"none","networkAccessRevision":"…","quotas":{…},"npuDevices":[…],
    ///   "environmentId":"…"}`. Shape owned by the execution layer; stored verbatim.
    QJsonObject permissionEpoch;
    /// How it ran, recorded at start: `{"env":{…exact env injected…},"cwd":"…","argv":[…]}`.
    /// Never put a light workspace's own env values here (docs/light-workspaces.md: env never
    /// reaches disk).
    QJsonObject provenance;
    QStringList createdFiles; ///< workspace-relative POSIX paths, sorted
    QStringList modifiedFiles;
    QStringList deletedFiles;
    LogByteCounts logBytes;
    ExecutionUsage usage;
    qint64 seq = 0; ///< insertion order (internal; cursor tie-break)

    /// The API shape: `{"executionId","workspace","kind","state","queuePosition"|null,
    /// "createdAt" (ISO),"startedAt"|null,"finishedAt"|null,"exitCode"|null,"signal"|null,
    /// "durationMs"|null,"statusReason","permissionEpoch":{…},"provenance":{…},
    /// "createdFiles":[…],"modifiedFiles":[…],"deletedFiles":[…],"logBytes":{…},
    /// "usage":{…ExecutionUsage}}`.
    QJsonObject toJson() const;
};

/// The creation request for ExecutionRepository::insert().
struct NewExecution {
    QString executionId; ///< client's idempotency key; empty → the repository generates one
    QString workspaceId;
    ExecutionKind kind = ExecutionKind::Shell;
    qint64 createdMs = 0; ///< 0 → now
    QJsonObject permissionEpoch;
    QJsonObject provenance; ///< may be filled later by markRunning()
    std::optional<int> queuePosition;
};

/// How an execution ended, for ExecutionRepository::finish().
struct ExecutionOutcome {
    ExecutionState state = ExecutionState::Completed; ///< must be terminal
    qint64 finishedMs = 0;                            ///< 0 → now
    std::optional<int> exitCode;
    std::optional<int> signal;
    std::optional<qint64> durationMs; ///< absent → finishedMs - startedMs when it started
    QString statusReason;
    QStringList createdFiles;
    QStringList modifiedFiles;
    QStringList deletedFiles;
    LogByteCounts logBytes;
    ExecutionUsage usage;
};

} // namespace runbox::store
