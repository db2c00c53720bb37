#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace runbox {
class ApiClient;
}

namespace runbox::cli {

/// What streaming an execution's log delivered.
struct LogStreamResult {
    bool ok = false;         ///< the stream ended normally (an error was printed otherwise)
    QJsonObject exitEvent;   ///< the `exit` event, empty when the execution has not ended
    qint64 nextOffset = 0;   ///< logical offset after the last byte (or gap) received
    qint64 droppedBytes = 0; ///< bytes reported missing by `gap` events (retention)
    /// When not ok: the exit status (cli/CliOptions.h ExitCode: API error or connection error).
    int failureExit = 1;
};

/// Streams `GET /v1/executions/{id}/log?offset=N[&follow=true]`: stdout and stderr bytes go to
/// our stdout and stderr (fds 1 and 2) exactly, nothing else is written into them. Without
/// @p json it asks for the framed format (`format=frames`, docs/managed.md) over a plain socket
/// and writes the raw bytes as they arrive; with @p json it reads the NDJSON stream
/// (docs/contracts.md "Event stream") and prints each event as one JSON line on stdout instead.
/// With @p follow a dropped connection (agent restarted, network) is resumed from the next unseen
/// offset, so no byte is repeated or lost; it gives up after 30 attempts in a row that received
/// nothing. Errors and gaps are reported on stderr after the bytes, prefixed with
/// `runbox @p command:`.
LogStreamResult streamLog(ApiClient& client, const QString& executionId, qint64 offset, bool follow,
                          bool json, const char* command);

/// `runbox logs [-f|--follow] [--offset N] [--json] ID`. Exit status: 0 when the log was
/// delivered (with -f: the command's, as `runbox exec`), 1 on API errors, 2 on usage, 3 when the
/// agent could not be reached.
int runLogs(ApiClient& client, const QStringList& args);

} // namespace runbox::cli
