#pragma once

#include <QByteArray>
#include <QString>

namespace runbox {

/// The pool credential (docs/contracts.md "Request signing", "Pool credential"): one secret per
/// pool, kept in a 0600 file as 64 lowercase hex characters (256 random bits), from which each
/// pool host's agent token is derived with the host's public nonce. Shared by the agent (its
/// own token) and the clients (the token of the host they talk to); the secret itself is never
/// sent anywhere.
class PoolSecret final {
public:
    /// `$XDG_CONFIG_HOME/runbox/pools/NAME.secret` (else `~/.config/runbox/pools/NAME.secret`).
    static QString defaultPath(const QString& pool);

    /// Reads the secret in @p path: 64 lowercase hex characters (a trailing newline allowed).
    /// Empty with @p error set when the file is refused by PrivateFile::read (missing or
    /// unreadable, not a regular file, owned by another uid, may be read or written by group or
    /// others: "chmod 600 it", as the agent refuses its own token file, docs/contracts.md
    /// "Processes and start-up"), or does not hold such a secret.
    static QByteArray read(const QString& path, QString* error);

    /// Creates @p path with a fresh secret (OpenSSL RAND_bytes, 32 bytes as hex), mode 0600,
    /// its directory made 0700 if missing; an existing file is kept and read (read()'s
    /// refusals). Returns the secret, or empty with @p error set.
    static QByteArray readOrCreate(const QString& path, QString* error);

    /// A pool host's agent token: lowercase hex HMAC-SHA256(key = @p secret as its 64 hex
    /// characters, message = "runbox-pool-host:" + @p hostNonce). 64 hex characters.
    static QByteArray hostToken(const QByteArray& secret, const QByteArray& hostNonce);

    /// Whether @p nonce can be a host nonce: 32 lowercase hex characters (128 bits).
    static bool validHostNonce(const QByteArray& nonce);
};

} // namespace runbox
