#pragma once

#include "shared/ApiClient.h"

#include <QStringList>

namespace runbox::cli {

/// `runbox exec [ExecOptions…]` (cli/ExecOptions.h): runs one sync execution and streams its output
/// to stdout/stderr. Without
/// --workspace a fresh workspace is created and deleted afterwards. The exit status is the
/// command's exit code; when the execution did not complete normally its status and reason are
/// printed to stderr and the exit status is 125 (setup failed) or the command's code.
int runExec(ApiClient& client, QStringList args);

} // namespace runbox::cli
