#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

namespace runbox {

/// One agent of a fleet file: where it is and how its agent token is found.
struct FleetAgent {
    QString name;        ///< the host part of pooled ids `<name>.<local id>`: 1-64 of A-Za-z0-9_-
    QString url;         ///< http:// or https:// base URL
    QString tokenFile;   ///< path of the agent token (a 0600 file); relative = to the fleet file
    QString keychain;    ///< or a keychain entry's name (read by the console; the CLI refuses it)
    QString fingerprint; ///< the agent's TLS certificate SHA-256 pin as written; "" = none
    /// The pin (32 bytes of SHA-256 over the certificate's DER) read from `fingerprint`, for
    /// ApiClient::setPinnedSha256; empty = none (docs/contracts.md "TLS and pinning").
    QByteArray pin;
    /// Or, instead of tokenFile and keychain, the pool whose secret (PoolSecret::defaultPath)
    /// the token is derived from with the host's public nonce (docs/contracts.md "Pool
    /// credential"; PoolHostToken).
    QString pool;
};

/// The fleet file (docs/contracts.md "Fleet file"): the one place where the console, the CLI
/// and the Python client list agents, as JSON
/// `{"agents":[{"name","url","tokenFile"|"keychain"|"pool","fingerprint"}]}`. Tokens are
/// referenced, never stored in it: a `"token"` member is refused.
class FleetFile final {
public:
    /// `$XDG_CONFIG_HOME/runbox/fleet.json` (else `~/.config/runbox/fleet.json`).
    static QString defaultPath();

    /// Reads and validates @p path. Empty on success, else why (naming the file and the entry):
    /// unreadable file, not JSON, an unknown member, a bad or duplicate name, a URL that is not
    /// http(s), not exactly one of tokenFile, keychain and pool (a pool name: 1-64 of
    /// A-Za-z0-9_-), a literal token, a fingerprint that is not a SHA-256 one
    /// (tls::parseFingerprint) or one given for an http:// URL.
    QString load(const QString& path);
    /// Parses @p json as a fleet file found at @p path (relative token files resolve against
    /// its directory). Same errors as load().
    QString parse(const QByteArray& json, const QString& path);

    const QList<FleetAgent>& agents() const { return m_agents; }
    /// The agent named @p name, or nullptr.
    const FleetAgent* find(const QString& name) const;

    /// The agent token of @p agent (hex, trimmed), or an empty array with @p error set: a token
    /// file that is missing, empty, or readable by group or others (as the agent refuses its
    /// own, docs/contracts.md "Processes and start-up"), a keychain entry, or a pool entry
    /// (whose token is derived over the network: PoolHostToken::forFleetAgent).
    static QByteArray readToken(const FleetAgent& agent, QString* error);

    /// Whether @p name can be a fleet agent's name (no '.', which separates pooled ids).
    static bool validName(const QString& name);

private:
    QList<FleetAgent> m_agents;
};

} // namespace runbox
