#pragma once

#include <QStringList>

namespace runbox {
class ApiClient;
}

namespace runbox::cli {

/// `runbox files …`: the workspace file API (docs/contracts.md "Workspace file API") for one
/// `WS:PATH` (cli/CopyCommand.h RemotePath; `WS:` alone is the workspace root). Links are shown
/// as links, never followed (the agent's rule).
/// - `files ls [--json] WS:PATH`: a directory's entries, every page followed (TYPE MODE SIZE
///   MTIME NAME, a link as `name -> target`); a file or link: its own line. --json: `{"path",
///   "entries":[…],"total"}` (entries as the API's listing) or, for a non-directory, its entry.
/// - `files stat [--json] WS:PATH`: `GET …?stat=true`, one `field: value` line each.
/// - `files rm [-r|--recursive] WS:PATH…`: DELETE (each in turn; the first failure's status).
/// - `files mv [--overwrite] [-p|--parents] WS:FROM [WS:]TO`: `files:move` within one workspace.
/// - `files mkdir [-p|--parents] [--json] WS:PATH…`: `files:mkdir`; prints each path made.
/// Exit status: 0; 1 when the agent refuses; 2 on usage; 3 when it cannot be reached.
int runFiles(ApiClient& client, const QStringList& args);

} // namespace runbox::cli
