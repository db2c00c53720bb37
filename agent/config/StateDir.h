#pragma once

#include <QByteArray>
#include <QString>

namespace runbox::config {

/// The agent's state directory (mode 0700) and the files in it that others rely on:
/// `agent.token` (hex, 0600, created on first start), `metrics.token` (the same form: the
/// read-only bearer token of `GET /metrics`, docs/metrics.md) and `agent.url` (written once
/// ready). The one place token files are made, read and replaced.
class StateDir final {
public:
    explicit StateDir(QString path) : m_path(std::move(path)) {}

    QString path() const { return m_path; }
    QString filePath(const QString& name) const { return m_path + '/' + name; }

    /// Creates the directory (and `workspaces/`, `run/`) with mode 0700. Returns an error text,
    /// empty on success (e.g. "state directory /x is not writable by this user: Permission
    /// denied").
    QString prepare() const;
    /// For a privileged agent whose sandboxes run as other uids, which must reach their own
    /// workspace and egress socket by path (bwrap resolves bind sources by path): the state dir,
    /// `workspaces/` and `egress/` become 0711 (searchable, not listable; each workspace stays
    /// 0700, owned by its uid), every other entry is kept to the agent (directories 0700, files
    /// 0600; `light/` is the light tier's). Every directory above must be searchable by others.
    /// Returns an error text naming the directory that is not, empty on success.
    QString openToSandboxUsers() const;

    /// Reads `agent.token`, or creates it with 256 random bits (OpenSSL) as 64 hex chars, mode
    /// 0600, written to a temp file and renamed so no half-written token is ever read. An
    /// existing one is read under shared/PrivateFile's rules (a regular file of this user, mode
    /// & 077 == 0: "chmod 600 it"); a refused one returns empty and sets @p error.
    QByteArray loadOrCreateToken(QString* error) const;
    /// The same for `metrics.token` (docs/metrics.md "Token"): read, or created on first start
    /// as 64 hex characters of 256 random bits, 0600; refused as loadOrCreateToken() refuses.
    QByteArray loadOrCreateMetricsToken(QString* error) const;
    /// Replaces `metrics.token` with a fresh one (same form, atomically: a reader sees the old
    /// or the new token, never a mix) and returns it; empty with @p error on failure. A running
    /// agent accepts only the new one from its next scrape on (it re-reads a changed file).
    QByteArray rotateMetricsToken(QString* error) const;

    /// Writes @p url + '\n' to `agent.url` atomically.
    bool writeUrl(const QString& url) const;
    /// Writes @p url + '\n' to `agent.tls-url` atomically (the TLS listener's base URL), or
    /// removes that file when @p url is empty (no TLS listener: no stale URL is left).
    bool writeTlsUrl(const QString& url) const;

private:
    /// loadOrCreateToken() for the token file @p name.
    QByteArray loadOrCreateSecret(const QString& name, QString* error) const;
    QString m_path;
};

/// Writes @p data to @p path atomically (temp file in the same directory, fsync, rename) with
/// file mode @p mode. Returns false and sets @p error on failure.
bool writeFileAtomically(const QString& path, const QByteArray& data, int mode, QString* error);

} // namespace runbox::config
