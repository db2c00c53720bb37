#pragma once

#include <QStringList>

namespace runbox {
class ApiClient;
}

namespace runbox::cli {

/// `runbox workspace …` (docs/managed.md "CLI"), agent token for create and rm:
/// - `workspace create [--light [--count N]] [--json]`: `POST /v1/workspaces` (strong, or a
///   batch of N light ones); prints `ID TOKEN` per workspace made (with --json the answer), and
///   on stderr how many a full light host rejected. `--count` without `--light` is a usage
///   error (strong workspaces are made one at a time).
/// - `workspace ls [--light|--strong] [--json]` (also `runbox workspaces`): a table ID,
///   ISOLATION, UID, CREATED (with --json the `GET /v1/workspaces` answer).
/// - `workspace rm ID… [--json]` (also `delete`): `DELETE /v1/workspaces/{id}` for each ID in
///   turn; every ID is tried, the exit status is the first failure's.
/// Exit status: 0; 1 when the agent refuses; 2 on usage; 3 when it cannot be reached.
int runWorkspace(ApiClient& client, const QStringList& args);

/// `runbox workspaces [--json]`: `workspace ls`, kept for scripts written before it.
int runWorkspacesAlias(ApiClient& client, const QStringList& args);

} // namespace runbox::cli
