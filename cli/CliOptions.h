#pragma once

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>
#include <QUrl>

namespace runbox {
struct ApiResponse;
}

namespace runbox::cli {

/// The CLI's exit statuses (documented in `runbox --help` and docs/managed.md "CLI").
/// `exec`, `run --follow` and `logs -f` exit with the command's own status instead when it ran
/// (kExitTimeout, kExitSetupFailed and 128 + N for a signal N are theirs too).
enum ExitCode : int {
    kExitOk = 0,
    kExitApiError = 1,      ///< the agent answered with an error status (or a refusal of the CLI)
    kExitUsage = 2,         ///< unknown command or option, missing value, bad argument
    kExitConnection = 3,    ///< no answer: the agent could not be reached or the connection broke
    kExitTimeout = 124,     ///< the execution timed out (`timed_out`), as timeout(1) does
    kExitSetupFailed = 125, ///< the sandbox could not be set up (`setup_failed`)
};

/// Where the agent is and how to authenticate: --url / RUNBOX_URL / <state>/agent.url, and
/// --token / RUNBOX_TOKEN / --token-file / <state>/agent.token, with --state-dir /
/// RUNBOX_STATE_DIR (default /var/lib/runbox as root, else ~/.local/state/runbox).
///
/// An https:// agent's certificate is pinned with --fingerprint / RUNBOX_FINGERPRINT (its SHA-256,
/// `AB:CD:…` or `sha256:<hex>`, tls::parseFingerprint; docs/contracts.md "TLS and pinning").
struct Connection {
    QUrl url;
    QByteArray token;
    QByteArray pin; ///< SHA-256 of the pinned certificate (32 bytes), or empty
    /// `--pool NAME`: the token is derived from that pool's secret and the host nonce of the
    /// agent at `url` (docs/contracts.md "Pool credential"), by derivePoolToken(); no token
    /// option is read then (a token option with it is an error).
    QString poolName;
    /// The agent was named on purpose (`--url` or RUNBOX_URL), not found in the state dir:
    /// execution ids are then taken as they are, even with a '.' (FleetTarget).
    bool urlGiven = false;
    /// Consumes the connection options from @p args, wherever they are before `--` (leaving the
    /// rest). Returns an error text (a missing value, no token, a URL that is not http:// or
    /// https://, a fingerprint that is not one, a fingerprint for an http:// URL, `--pool`
    /// with a token option or a bad pool name).
    QString parse(QStringList* args);
    /// For `--pool`: sets `token` from PoolSecret::defaultPath(poolName)'s secret and the nonce
    /// on `url`'s `GET /health` (PoolHostToken::derive). The secret is read and checked before
    /// anything is sent. Returns an error text, empty on success.
    QString derivePoolToken();
};

/// Takes `--name VALUE` (or `--name=VALUE`) from @p args before any `--`, removing it; empty
/// when absent. Sets @p error when the option has no value. For the global options only
/// (connection, `--fleet`), which may stand anywhere; a command's own options go through
/// ParsedArgs.
QString takeGlobalOption(QStringList* args, const QString& name, QString* error);

/// One option a command accepts: `--name` (and an optional short alias such as `-r`), a
/// flag or an option with a value (`--name VALUE` or `--name=VALUE`).
struct OptionSpec {
    QString name;            ///< "--json"
    bool takesValue = false; ///< `--name VALUE`
    QString alias = {};      ///< "-f", or empty
};

/// A command's arguments parsed against the options it declares: the one place the CLI parses
/// options, so every command refuses the same way. An argument that starts with `-` (but `-`
/// alone, the stdin/stdout name) and is not declared is a usage error, and so is an option with
/// a value whose value is missing (the end of the arguments, or another declared option). `--`
/// ends the options: what follows is kept in `rest`, never read as an option. Options and
/// positionals may come in any order. A flag given twice is the flag; a value option given
/// twice keeps both values (values()), value() being the last.
class ParsedArgs {
public:
    /// Parses @p args against @p options. False with @p error set (naming the argument) on a
    /// usage error.
    bool parse(const QStringList& args, const QList<OptionSpec>& options, QString* error);

    bool has(const QString& name) const { return m_values.contains(name); }
    /// The last value of option @p name (by its long name), empty when absent.
    QString value(const QString& name) const;
    /// Every value of option @p name, in order.
    QStringList values(const QString& name) const { return m_values.value(name); }

    QStringList positional; ///< the arguments that are not options, before `--`
    QStringList rest;       ///< the arguments after `--`
    bool dashDash = false;  ///< whether `--` was given

private:
    QMap<QString, QStringList> m_values; ///< long name → values (a flag: one empty value)
};

/// Parses @p args for command @p command (e.g. "files ls") against @p options; on a usage error
/// prints `runbox COMMAND: ERROR` and @p usage on stderr and returns false (the caller exits
/// with kExitUsage).
bool parseCommandArgs(const char* command, const QStringList& args,
                      const QList<OptionSpec>& options, const char* usage, ParsedArgs* out);

/// Prints `runbox COMMAND: MESSAGE` and @p usage on stderr; returns kExitUsage.
int usageError(const char* command, const QString& message, const char* usage);

/// The exit status for a failed @p response: kExitConnection when no HTTP answer came (status
/// 0), else kExitApiError.
int failureExit(const ApiResponse& response);

/// Prints why @p response failed on stderr (`runbox COMMAND: STATUS CODE: MESSAGE`, or
/// `runbox COMMAND: cannot reach the agent: …`) and returns failureExit().
int reportFailure(const char* command, const ApiResponse& response);

/// For a listing or a record: on success prints the body as indented JSON and returns kExitOk;
/// otherwise reportFailure().
int printJsonResponse(const char* command, const ApiResponse& response);

} // namespace runbox::cli
