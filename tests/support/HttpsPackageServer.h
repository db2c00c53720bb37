#pragma once

#include <QMap>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>

namespace runbox::testsupport {

/// A local HTTPS server of package sources for the science environments' tests
/// (docs/environments.md "Package index"): tests/support/https_simple_index.py on 127.0.0.1 with
/// a self-signed certificate for @p host, a plain TCP canary that logs every connection, and a
/// resolver hosts file mapping @p host and @p canaryHost to 127.0.0.1 (the agent's test-only
/// RUNBOX_TEST_RESOLVER_HOSTS), in a directory the agent's sandboxes may read. Killed when
/// destroyed.
class HttpsPackageServer final {
public:
    HttpsPackageServer(QString host, QString canaryHost);
    ~HttpsPackageServer();
    HttpsPackageServer(const HttpsPackageServer&) = delete;
    HttpsPackageServer& operator=(const HttpsPackageServer&) = delete;

    /// Serves the wheels and sdists of @p simpleDir as a PEP 503 index under /simple/, and the
    /// files of @p treeDir ("" = none) under /repo/. False, with @p error set, when the
    /// certificate or the server could not be made.
    bool start(const QString& simpleDir, const QString& treeDir, QString* error);

    int port() const { return m_port; }
    int canaryPort() const { return m_canaryPort; }
    /// `https://HOST:PORT` followed by @p path.
    QString url(const QString& path) const;
    /// Every path requested so far, one a line, and "canary" for each canary connection.
    QString requestLog() const;
    /// @p more and what points an agent's package sources at this server:
    /// RUNBOX_ENV_INDEX_CA_FILE (its certificate), RUNBOX_ENV_INDEX_PRIVATE_CIDRS (127.0.0.0/8)
    /// and RUNBOX_TEST_RESOLVER_HOSTS (for AgentOptions::extraEnv).
    QMap<QString, QString> agentEnv(QMap<QString, QString> more = {}) const;

private:
    QString path(const QString& name) const { return m_dir.filePath(name); }

    QString m_host;
    QString m_canaryHost;
    QTemporaryDir m_dir;
    QProcess m_process;
    int m_port = 0;
    int m_canaryPort = 0;
};

} // namespace runbox::testsupport
