#pragma once

#include "shared/ApiClient.h"

#include <QStringList>

namespace runbox::cli {

/// `runbox exec [ExecOptions…]` (cli/ExecOptions.h): runs one sync execution and streams its output
/// to stdout/stderr. Without --workspace a fresh workspace is created and deleted afterwards. The
/// exit status is the command's (exitStatusOf: 124 timed out, 125 setup failed, 128 + N killed
/// by signal N); when the execution did not complete normally its status and reason are printed
/// to stderr. Usage errors 2, API errors 1, connection errors 3 (cli/CliOptions.h ExitCode).
int runExec(ApiClient& client, const QStringList& args);

} // namespace runbox::cli
