#include "agent/AgentListeners.h"

#include "agent/config/AgentConfig.h"
#include "agent/tls/PlaintextListen.h"
#include "agent/tls/TlsIdentity.h"
#include "shared/TlsPin.h"

#include <QNetworkInterface>
#include <QSysInfo>
#include <QTextStream>

#include <grp.h>

namespace runbox {

namespace {

QString urlOf(const char* scheme, const QHostAddress& address, quint16 port) {
    const QString host = address.protocol() == QAbstractSocket::IPv6Protocol
                             ? '[' + address.toString() + ']'
                             : address.toString();
    return QStringLiteral("%1://%2:%3").arg(QLatin1String(scheme), host).arg(port);
}

/// The subjectAltName of a generated certificate: the host name (and `localhost` on a loopback
/// listener), and the listen address, or every address of the host for a wildcard one.
void altNames(const QHostAddress& listen, QStringList* dnsNames, QList<QHostAddress>* addresses) {
    *dnsNames << QSysInfo::machineHostName();
    if (tls::isLoopback(listen))
        *dnsNames << QStringLiteral("localhost");
    if (listen == QHostAddress::AnyIPv4 || listen == QHostAddress::AnyIPv6 ||
        listen == QHostAddress::Any) {
        for (const QHostAddress& a : QNetworkInterface::allAddresses())
            if (!a.isLinkLocal())
                *addresses << a;
    } else {
        *addresses << listen;
    }
}

} // namespace

QString AgentListeners::start(const config::AgentConfig& config, http::RequestHandler* handler,
                              const http::HttpLimits& limits, const Log& log) {
    m_plain = std::make_unique<http::HttpServer>(handler, limits);
    if (!m_plain->listen(config.listenAddress, config.listenPort))
        return QStringLiteral("cannot listen on %1:%2: %3")
            .arg(config.listenAddress.toString())
            .arg(config.listenPort)
            .arg(m_plain->errorString());
    m_plainUrl = urlOf("http", config.listenAddress, m_plain->serverPort());
    m_json.insert(QStringLiteral("http"), QJsonObject{{"url", m_plainUrl}});
    m_json.insert(QStringLiteral("tls"), QJsonValue::Null);
    m_json.insert(QStringLiteral("unix"), QJsonValue::Null);
    if (!config.listenUnixPath.isEmpty()) {
        if (const QString e = m_unixSocket.open(config.listenUnixPath, config.listenUnixGroup,
                                                http::HttpServer::systemListenBacklog());
            !e.isEmpty())
            return e;
        m_unix = std::make_unique<http::HttpServer>(handler, limits);
        m_unix->shareBoundsWith(*m_plain);
        if (!m_unix->setSocketDescriptor(m_unixSocket.takeDescriptor()))
            return QStringLiteral("cannot listen on %1: %2")
                .arg(config.listenUnixPath, m_unix->errorString());
        const struct group* g = ::getgrgid(m_unixSocket.gid());
        const QString group =
            g ? QString::fromLocal8Bit(g->gr_name) : QString::number(m_unixSocket.gid());
        log(QStringLiteral("unix-socket listener on %1 (mode 0660, group %2)")
                .arg(config.listenUnixPath, group));
        m_json.insert(QStringLiteral("unix"), QJsonObject{{"path", config.listenUnixPath},
                                                          {"group", group},
                                                          {"mode", QStringLiteral("0660")}});
    }
    if (!config.tlsListen)
        return {};

    QStringList dnsNames;
    QList<QHostAddress> addresses;
    altNames(config.tlsListenAddress, &dnsNames, &addresses);
    tls::TlsIdentity identity;
    if (auto e = tls::TlsIdentity::loadOrCreate(config.stateDir, config.tlsCertPath,
                                                config.tlsKeyPath, dnsNames, addresses, &identity))
        return e->message;
    m_tls = std::make_unique<http::HttpServer>(handler, limits);
    m_tls->setTls(identity.serverConfiguration());
    m_tls->shareBoundsWith(*m_plain); // one connection cap, one buffered-bytes budget
    if (!m_tls->listen(config.tlsListenAddress, config.tlsListenPort))
        return QStringLiteral("cannot listen (TLS) on %1:%2: %3")
            .arg(config.tlsListenAddress.toString())
            .arg(config.tlsListenPort)
            .arg(m_tls->errorString());
    m_tlsUrl = urlOf("https", config.tlsListenAddress, m_tls->serverPort());
    const QString fingerprint = identity.fingerprint();
    log(QStringLiteral("TLS listener on %1 with %2 certificate %3 (%4); SHA-256 fingerprint %5")
            .arg(m_tlsUrl,
                 identity.createdNow  ? QStringLiteral("the newly generated self-signed")
                 : identity.generated ? QStringLiteral("the generated self-signed")
                                      : QStringLiteral("the operator's"),
                 identity.certificatePath,
                 QStringLiteral("valid until %1")
                     .arg(identity.certificate.expiryDate().toUTC().toString(Qt::ISODate)),
                 fingerprint));
    m_json.insert(
        QStringLiteral("tls"),
        QJsonObject{{"url", m_tlsUrl},
                    {"fingerprint", fingerprint},
                    {"generated", identity.generated},
                    {"notAfter", identity.certificate.expiryDate().toUTC().toString(Qt::ISODate)}});
    return {};
}

void AgentListeners::close() {
    if (m_plain)
        m_plain->close();
    if (m_tls)
        m_tls->close();
    if (m_unix)
        m_unix->close();
    m_unixSocket.remove();
}

QList<quint16> AgentListeners::ports() const {
    QList<quint16> ports;
    if (m_plain)
        ports << m_plain->serverPort();
    if (m_tls)
        ports << m_tls->serverPort();
    return ports;
}

int printFingerprint(const config::AgentConfig& config) {
    QSslCertificate certificate;
    if (auto e =
            tls::TlsIdentity::readCertificate(config.stateDir, config.tlsCertPath, &certificate)) {
        QTextStream(stderr) << "runbox-agent: " << e->message << Qt::endl;
        return 1;
    }
    QTextStream(stdout) << tls::formatFingerprint(tls::certificateSha256(certificate)) << Qt::endl;
    return 0;
}

} // namespace runbox
