#include "support/HttpsPackageServer.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

#include <sys/stat.h>

namespace runbox::testsupport {

HttpsPackageServer::HttpsPackageServer(QString host, QString canaryHost)
    : m_host(std::move(host)), m_canaryHost(std::move(canaryHost)) {}

HttpsPackageServer::~HttpsPackageServer() {
    m_process.kill();
    m_process.waitForFinished(5000);
}

bool HttpsPackageServer::start(const QString& simpleDir, const QString& treeDir, QString* error) {
    if (!m_dir.isValid() || ::chmod(QFile::encodeName(m_dir.path()).constData(), 0755) != 0) {
        *error = QStringLiteral("no temporary directory");
        return false;
    }
    QProcess openssl;
    openssl.start("openssl", {"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                              "-subj", "/CN=" + m_host, "-addext", "subjectAltName=DNS:" + m_host,
                              "-keyout", path("key.pem"), "-out", path("ca.pem")});
    if (!openssl.waitForFinished(60000) || openssl.exitCode() != 0 ||
        ::chmod(QFile::encodeName(path("ca.pem")).constData(), 0644) != 0) {
        *error = QStringLiteral("openssl req failed: ") + openssl.readAllStandardError();
        return false;
    }
    QFile hosts(path("hosts"));
    if (!hosts.open(QIODevice::WriteOnly) ||
        hosts.write(
            QStringLiteral("%1 127.0.0.1\n%2 127.0.0.1\n").arg(m_host, m_canaryHost).toUtf8()) <=
            0) {
        *error = QStringLiteral("cannot write the hosts file");
        return false;
    }
    hosts.close();
    ::chmod(QFile::encodeName(path("hosts")).constData(), 0644);
    QStringList args{QStringLiteral(RUNBOX_SOURCE_DIR "/tests/support/https_simple_index.py"),
                     simpleDir, path("ca.pem"), path("key.pem"), path("requests.log")};
    if (!treeDir.isEmpty())
        args.append(treeDir);
    m_process.start(QStringLiteral("/usr/bin/python3"), args);
    if (!m_process.waitForReadyRead(15000)) {
        *error = QStringLiteral("https_simple_index.py did not start: ") +
                 m_process.readAllStandardError();
        return false;
    }
    const QJsonObject ports = QJsonDocument::fromJson(m_process.readLine()).object();
    m_port = ports.value(QLatin1String("index")).toInt();
    m_canaryPort = ports.value(QLatin1String("canary")).toInt();
    if (m_port <= 0 || m_canaryPort <= 0) {
        *error = QStringLiteral("https_simple_index.py printed no ports");
        return false;
    }
    return true;
}

QString HttpsPackageServer::url(const QString& path) const {
    return QStringLiteral("https://%1:%2%3").arg(m_host).arg(m_port).arg(path);
}

QString HttpsPackageServer::requestLog() const {
    QFile f(path("requests.log"));
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QMap<QString, QString> HttpsPackageServer::agentEnv(QMap<QString, QString> more) const {
    more.insert(QStringLiteral("RUNBOX_ENV_INDEX_CA_FILE"), path("ca.pem"));
    more.insert(QStringLiteral("RUNBOX_ENV_INDEX_PRIVATE_CIDRS"), QStringLiteral("127.0.0.0/8"));
    more.insert(QStringLiteral("RUNBOX_TEST_RESOLVER_HOSTS"), path("hosts"));
    return more;
}

} // namespace runbox::testsupport
