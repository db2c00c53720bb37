#pragma once

#include <QStringList>

namespace runbox {
class ApiClient;
}

namespace runbox::cli {

/// `runbox ps [--workspace W] [--state S[,S…]] [--limit N] [--cursor C] [--json]`: lists
/// executions newest first (`GET /v1/executions`) as a table with the columns EXECUTION,
/// WORKSPACE, KIND, STATE, QUEUE (position while queued, 0 = next), CREATED (UTC), DURATION,
/// EXIT (exit code, or the signal name). When more pages exist, the `--cursor` to pass for the
/// next one is printed on stderr.
int runPs(ApiClient& client, const QStringList& args);

/// `runbox cancel [--no-wait] [--json] ID`: `POST /v1/executions/{id}/cancel`, then waits (up to
/// 60 s) until the state is final — for a running execution, once its process is gone — and
/// prints `ID STATE`.
int runCancel(ApiClient& client, const QStringList& args);

/// Lays out @p rows (the first is the header) in left-aligned columns two spaces apart.
QString formatTable(const QList<QStringList>& rows);

} // namespace runbox::cli
