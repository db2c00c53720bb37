#pragma once

#include <QString>
#include <QStringList>
#include <QUrl>

namespace runbox::cli {

struct Connection;

/// Where the fleet file is for this run: `--fleet FILE` (then it must load) or the default
/// (shared/FleetFile::defaultPath(), used only when it exists). docs/contracts.md "Fleet file".
struct FleetChoice {
    QString path;
    bool explicitPath = false; ///< given with --fleet
};

/// Pooled workspace ids `HOST.ID` on the command line of `exec`/`run`/`ps` (`--workspace`),
/// `workspace rm`, `files` and `cp` (`HOST.ID:PATH`), and pooled execution ids
/// `HOST.EXECUTION_ID` of `logs` and `cancel` (what `run` prints for a pooled workspace; not
/// with `--url`/RUNBOX_URL without `--pool`: an execution id may hold a '.' of its own): when HOST
/// is an agent of the fleet file, the argument is rewritten to the agent's own id and @p connection
/// is pointed at that agent (its URL and the token its tokenFile holds or, for a `"pool"` entry,
/// the token derived from the pool's secret and the host's nonce: PoolHostToken). With `--pool
/// NAME` (Connection::poolName), a pooled id whose host the fleet does not list is rewritten too
/// and goes to the connection's URL (the outcome is then None: the caller derives the token). Every
/// pooled id of one command must name the same agent.
class FleetTarget final {
public:
    enum class Outcome {
        None,     ///< no pooled id: the command goes where the connection options say
        Resolved, ///< rewritten; @p connection names the agent of the pooled ids
        Failed,   ///< error set: a fleet file that does not load, two agents, an unreadable token
    };
    /// Applies to @p args of @p command (the command word removed).
    static Outcome apply(const QString& command, QStringList* args, const FleetChoice& fleet,
                         Connection* connection, QString* error);
    /// The pin the fleet file keeps for the agent at @p url (same scheme, host and port; the
    /// fleet file is the one place pins live, docs/contracts.md "Fleet file"): for a command
    /// given `--url https://…` without `--fingerprint`. Empty when there is no fleet file, no
    /// such agent or no pin; a fleet file that does not load sets @p warning.
    /// The HOST of the pooled ids apply() rewrote in this run, "" when none: `run` prints the
    /// new execution's id as `HOST.EXECUTION_ID` with it, so `logs` and `cancel` find its agent
    /// again from any machine holding the pool's credential.
    static QString pooledHost();
    static QByteArray pinFor(const FleetChoice& fleet, const QUrl& url, QString* warning);
};

} // namespace runbox::cli
