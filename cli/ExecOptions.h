#pragma once

#include "cli/CliOptions.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace runbox {
class ApiClient;
}

namespace runbox::cli {

/// The options `runbox exec` and `runbox run` share, turned into an exec request body
/// (docs/contracts.md "Exec request"): `[--workspace ID] [--kind shell|python|r (--code CODE |
/// --code-file FILE|-)] [--cwd DIR] [--env K=V]… [--timeout DURATION | --timeout-ms N]
/// [--max-output SIZE | --max-output-bytes N] [--stdin TEXT] [--id EXECUTION_ID]
/// [--environment NAME] [--npu IDS] [--json] [-- ARGV…]` (`--npu 0,3`: `npuDevices`, chip logic
/// ids, docs/npu.md). `--environment` leaves the name in
/// `environmentId` for applyEnvironmentOption() (cli/EnvironmentCommand.h) to resolve. DURATION and
/// SIZE use cli/Units.h (`2h`, `512MiB`).
struct ExecOptions {
    QString workspace; ///< empty: the command creates one
    QJsonObject body;  ///< the request body, without "workspace"
    bool json = false; ///< print raw JSON (events / records) instead of bytes

    /// The options above, for ParsedArgs (cli/CliOptions.h).
    static QList<OptionSpec> optionSpecs();
    /// Builds the body from @p args, parsed against optionSpecs() (plus the command's own).
    /// Returns an error text (empty on success): no command, a positional argument before `--`,
    /// a bad duration, size or `--env` pair, an unreadable `--code-file`.
    QString parse(const ParsedArgs& args);
};

/// `POST /v1/workspaces` (strong); returns its id, or an empty string with @p error set.
QString createWorkspace(ApiClient& client, QString* error);

/// Writes @p bytes to @p f unbuffered (stdout/stderr carry the execution's bytes exactly).
void writeBytes(FILE* f, const QByteArray& bytes);

/// The bytes of an output event: `data` (UTF-8 text) or `dataBase64`.
QByteArray eventBytes(const QJsonObject& event);

/// The CLI's exit status for an `exit` event, shared by `exec`, `run --follow` and `logs -f`:
/// the command's exit code; 124 for timed_out, 125 for setup_failed, 128 + N for a command
/// killed by signal N, 1 for other ends without an exit code (docs/managed.md "CLI").
/// Statuses other than completed/failed are reported on stderr, prefixed by @p command.
int exitStatusOf(const QJsonObject& exitEvent, const char* command);

} // namespace runbox::cli
