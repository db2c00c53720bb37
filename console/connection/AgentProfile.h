#pragma once

#include <QCoreApplication>
#include <QList>
#include <QString>
#include <QUrl>

namespace runbox::console {

/// A saved agent the console can connect to: one entry of the fleet file (ProfileStore). The
/// token is never part of a profile: it lives in the OS keychain (see TokenVault), keyed by id,
/// or in the 0600 file the fleet entry names (tokenFile).
struct AgentProfile {
    Q_DECLARE_TR_FUNCTIONS(runbox::console::AgentProfile)

public:
    QString id;   ///< stable random id (keychain key, settings key)
    QString name; ///< the fleet name, e.g. "gpu-node-3" (FleetFile::validName)
    QUrl url;     ///< base URL, e.g. http://127.0.0.1:4311 or https://node3:4312
    /// The pinned SHA-256 fingerprint of an https:// agent's certificate, `AB:CD:…`
    /// (tls::formatFingerprint); empty: only a certificate the system CA store verifies
    /// (docs/contracts.md "TLS and pinning").
    QString fingerprint = {};

    /// Through SSH (docs/contracts.md "Unix socket"): the console runs the operator's own ssh
    /// (SshTunnel) with `-L 127.0.0.1:LOCALPORT:REMOTE` and talks to the local end; url is then
    /// unused.
    bool viaSsh = false;
    QString sshHost = {}; ///< the SSH host (a name of the operator's ssh_config or an address)
    QString sshUser = {}; ///< the SSH user; empty: ssh's own choice (ssh_config, local user)
    int sshPort = 0;      ///< the SSH port; 0: ssh's own choice (ssh_config, 22)
    /// The remote end: an absolute unix socket path (default kDefaultSshSocket) or "host:port"
    /// (default kDefaultSshAddress).
    QString sshRemote = {};
    /// The agent token's file (absolute, 0600) when the fleet entry names one instead of a
    /// keychain entry; empty: the keychain entry named by id.
    QString tokenFile = {};
    /// Or the pool whose secret derives this agent's token with the nonce the agent shows on
    /// its `GET /health` (a fleet entry's `pool`, docs/contracts.md "Pool credential").
    QString pool = {};

    /// The agent's usual unix socket (runbox-agent --listen-unix).
    static constexpr const char* kDefaultSshSocket = "/run/runbox/agent.sock";
    /// The agent's usual TCP address on its own host.
    static constexpr const char* kDefaultSshAddress = "127.0.0.1:4311";

    /// "name (host:port)", what every page shows to say which host it is about.
    QString displayName() const;
    /// "host:port" of the URL; for an SSH profile "ssh user@host:port → remote".
    QString hostAndPort() const;
    /// sshRemote, or the default socket when it is empty.
    QString sshRemoteOrDefault() const;
    /// The `-L` forward's remote half: the socket path, or "host:port".
    bool sshRemoteIsSocket() const { return sshRemoteOrDefault().startsWith(u'/'); }
    /// fingerprint as the 32 bytes ApiClient::setPinnedSha256 takes; empty when none or invalid.
    QByteArray pinnedSha256() const;
    /// Empty when the profile can be used; otherwise a translated sentence saying what is wrong
    /// (no name, URL not http/https, no host, a fingerprint that is none or is not for https;
    /// for an SSH profile: no host, a host, user or remote that ssh would read as an option, a
    /// relative socket path, a remote address that is not host:port).
    /// A unix-socket URL is refused with a pointer to SSH profiles (viaSsh).
    QString validationError() const;
    /// The SSH half of validationError(): empty when the SSH fields can be used.
    QString sshValidationError() const;
    /// Whether @p other reaches the same agent the same way (URL, or the SSH fields).
    bool sameAddress(const AgentProfile& other) const;
    /// A new random id.
    static QString newId();

    friend bool operator==(const AgentProfile&, const AgentProfile&) = default;
};

} // namespace runbox::console
