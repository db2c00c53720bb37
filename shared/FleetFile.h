#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

namespace runbox {

/// How the console reaches an agent through the operator's own ssh (docs/contracts.md "Fleet
/// file", "Unix socket"): `ssh -N -L 127.0.0.1:LOCAL:REMOTE [-l user] [-p port] -- host`.
struct FleetSsh {
    QString host;   ///< a name of the operator's ssh_config or an address; never starts with '-'
    QString user;   ///< "" = ssh's own choice
    int port = 0;   ///< 0 = ssh's own choice
    QString remote; ///< an absolute unix socket path or "host:port"; "" = the agent's usual socket

    friend bool operator==(const FleetSsh&, const FleetSsh&) = default;
};

/// One agent of a fleet file: where it is and how its agent token is found.
struct FleetAgent {
    QString name;      ///< the host part of pooled ids `<name>.<local id>`: 1-64 of A-Za-z0-9_-
    QString url;       ///< http:// or https:// base URL; empty for an agent reached through ssh
    FleetSsh ssh;      ///< set (ssh.host not empty) instead of url: reached through an SSH tunnel
    QString tokenFile; ///< absolute path of the agent token (a 0600 file)
    /// tokenFile as the file wrote it (relative = to the fleet file's directory); save() writes
    /// this one back.
    QString tokenFileAsWritten;
    QString keychain;    ///< or a keychain entry's name (read by the console; the CLI refuses it)
    QString fingerprint; ///< the agent's TLS certificate SHA-256 pin as written; "" = none
    /// The pin (32 bytes of SHA-256 over the certificate's DER) read from `fingerprint`, for
    /// ApiClient::setPinnedSha256; empty = none (docs/contracts.md "TLS and pinning").
    QByteArray pin;
    /// Or, instead of tokenFile and keychain, the pool whose secret (PoolSecret::defaultPath)
    /// the token is derived from with the host's public nonce (docs/contracts.md "Pool
    /// credential"; PoolHostToken).
    QString pool;

    /// Whether the agent is reached through the operator's ssh (no url of its own).
    bool viaSsh() const { return !ssh.host.isEmpty(); }
};

/// The fleet file (docs/contracts.md "Fleet file"): the one place where the console, the CLI
/// and the Python client list agents, as JSON
/// `{"agents":[{"name","url"|"ssh","tokenFile"|"keychain"|"pool","fingerprint"}]}`. Tokens are
/// referenced, never stored in it: a `"token"` member is refused.
class FleetFile final {
public:
    /// `$XDG_CONFIG_HOME/runbox/fleet.json` (else `~/.config/runbox/fleet.json`).
    static QString defaultPath();

    /// Reads and validates @p path. Empty on success, else why (naming the file and the entry):
    /// unreadable file, not JSON, an unknown member, a bad or duplicate name, neither or both of
    /// url and ssh, a URL that is not http(s), an ssh object with an unknown member, no host, a
    /// host or user that ssh would read as an option, a port outside 1-65535 or a remote that
    /// is neither an absolute path nor host:port, not exactly one of tokenFile, keychain and pool
    /// (a pool name: 1-64 of A-Za-z0-9_-; not for an ssh entry), a literal token, a fingerprint
    /// that is not a SHA-256 one (tls::parseFingerprint) or one given for anything but an
    /// https:// URL.
    QString load(const QString& path);
    /// Parses @p json as a fleet file found at @p path (relative token files resolve against
    /// its directory). Same errors as load().
    QString parse(const QByteArray& json, const QString& path);

    const QList<FleetAgent>& agents() const { return m_agents; }
    /// Replaces the agents (the console's profiles; save() writes them).
    void setAgents(const QList<FleetAgent>& agents) { m_agents = agents; }

    /// The file's JSON: every agent with the members it has (tokenFileAsWritten for tokenFile).
    QByteArray toJson() const;
    /// Writes toJson() to @p path atomically (QSaveFile: a reader sees the old file or the new
    /// one), mode 0600, making its directory (0700) when missing. Empty on success, else why.
    QString save(const QString& path) const;
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
