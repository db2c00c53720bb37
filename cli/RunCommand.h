#pragma once

#include <QStringList>

namespace runbox {
class ApiClient;
}

namespace runbox::cli {

/// `runbox run [--follow] [ExecOptions…]` (cli/ExecOptions.h): starts a managed execution
/// (`POST /v1/executions`, docs/managed.md) and prints its id on stdout (with --json, the whole
/// record). Without --workspace a fresh workspace is created and kept (its id goes to stderr). With
/// --follow the id goes to stderr and the log is streamed as `runbox logs -f` does; the exit
/// status is then the command's (as `runbox exec`). Without --follow: 0 once it is accepted.
int runManaged(ApiClient& client, const QStringList& args);

} // namespace runbox::cli
