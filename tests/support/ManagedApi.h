#pragma once

#include "shared/ApiClient.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <functional>

namespace runbox::testsupport {

/// `POST /v1/executions` with @p body plus `"workspace": workspaceId`.
ApiResponse submitExecution(ApiClient& client, const QString& workspaceId, QJsonObject body);
/// `GET /v1/executions/{id}`; empty when it failed.
QJsonObject executionRecord(ApiClient& client, const QString& executionId);
/// Whether @p state is final (not queued or running).
bool isFinalState(const QString& state);
/// Polls the record (every 20 ms) until @p done says yes or @p timeoutMs passed; returns the
/// last record seen.
QJsonObject waitForRecord(ApiClient& client, const QString& executionId,
                          const std::function<bool(const QJsonObject&)>& done,
                          int timeoutMs = 60000);
/// waitForRecord() until the state is final.
QJsonObject waitUntilFinal(ApiClient& client, const QString& executionId, int timeoutMs = 60000);

/// What one `GET /v1/executions/{id}/log` stream delivered.
struct LogCapture {
    int status = 0;   ///< HTTP status (0: no answer)
    QByteArray bytes; ///< stdout and stderr bytes in offset order
    QByteArray stdoutBytes;
    QByteArray stderrBytes;
    QList<QJsonObject> events; ///< every event, in order
    QJsonObject exitEvent;     ///< the `exit` event, if any
    qint64 firstOffset = -1;   ///< offset of the first output event
    qint64 nextOffset = -1;    ///< offset after the last output byte or gap
    bool contiguous = true;    ///< each output event started where the previous one ended
    bool timedOut = false;
    bool aborted = false; ///< @p onEvent returned false
    /// True when the last event is `exit` (nothing follows it).
    bool endsWithExit() const;
};

/// Reads an execution's log from @p offset (following with @p follow) until the stream ends,
/// @p timeoutMs passes (the request is aborted) or @p onEvent returns false (aborted too: the
/// client disconnects mid-stream).
LogCapture readLog(ApiClient& client, const QString& executionId, qint64 offset, bool follow,
                   int timeoutMs = 60000,
                   const std::function<bool(const QJsonObject&)>& onEvent = {});

/// Host pids whose command line (/proc/<pid>/cmdline) contains @p marker, excluding ours.
QList<int> processesWithMarker(const QByteArray& marker);

} // namespace runbox::testsupport
