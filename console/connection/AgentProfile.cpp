#include "console/connection/AgentProfile.h"

#include "shared/FleetFile.h"
#include "shared/TlsPin.h"

#include <QRegularExpression>
#include <QUuid>

namespace runbox::console {

QString AgentProfile::sshRemoteOrDefault() const {
    const QString r = sshRemote.trimmed();
    return r.isEmpty() ? QString::fromLatin1(kDefaultSshSocket) : r;
}

QString AgentProfile::hostAndPort() const {
    if (viaSsh) {
        QString dest = sshUser.isEmpty() ? sshHost : sshUser + u'@' + sshHost;
        if (sshPort > 0)
            dest += u':' + QString::number(sshPort);
        return QStringLiteral("ssh %1 \u2192 %2").arg(dest, sshRemoteOrDefault());
    }
    if (!url.isValid() || url.host().isEmpty())
        return url.toString();
    const int port = url.port(url.scheme() == QLatin1String("https") ? 443 : 80);
    return QStringLiteral("%1:%2").arg(url.host()).arg(port);
}

QByteArray AgentProfile::pinnedSha256() const {
    return tls::parseFingerprint(fingerprint).value_or(QByteArray());
}

QString AgentProfile::displayName() const {
    return QStringLiteral("%1 (%2)").arg(name, hostAndPort());
}

namespace {
// Something ssh would read as an option, or that cannot be one word of its command line.
bool unsafeSshWord(const QString& s) {
    return s.startsWith(u'-') || s.contains(QRegularExpression(QStringLiteral("[\\s@:/]")));
}
} // namespace

QString AgentProfile::sshValidationError() const {
    if (sshHost.trimmed().isEmpty())
        return tr("Give the SSH host.");
    if (unsafeSshWord(sshHost.trimmed()))
        return tr("The SSH host must be a host name or address (no spaces, no leading '-', no "
                  "'@', ':' or '/').");
    if (!sshUser.isEmpty() && unsafeSshWord(sshUser.trimmed()))
        return tr("The SSH user must be a user name (no spaces, no leading '-').");
    if (sshPort < 0 || sshPort > 65535)
        return tr("The SSH port must be between 1 and 65535.");
    const QString remote = sshRemoteOrDefault();
    if (remote.contains(QRegularExpression(QStringLiteral("\\s"))))
        return tr("The remote end has no spaces.");
    if (remote.startsWith(u'/'))
        return {};
    static const QRegularExpression hostPort(
        QStringLiteral("^([A-Za-z0-9._-]+|\\[[0-9A-Fa-f:.]+\\]):([0-9]{1,5})$"));
    const auto m = hostPort.match(remote);
    if (!m.hasMatch() &&
        (remote.startsWith(u'.') || remote.contains(u'/') || !remote.contains(u':')))
        return tr("The remote socket must be an absolute path, e.g. %1.")
            .arg(QString::fromLatin1(kDefaultSshSocket));
    if (!m.hasMatch() || m.captured(1).startsWith(u'-') || m.captured(2).toInt() < 1 ||
        m.captured(2).toInt() > 65535)
        return tr("The remote address must be host:port, e.g. %1.")
            .arg(QString::fromLatin1(kDefaultSshAddress));
    return {};
}

QString AgentProfile::validationError() const {
    if (name.trimmed().isEmpty())
        return tr("Give the agent a name.");
    if (!FleetFile::validName(name))
        return tr("The name must be 1-64 letters, digits, '_' or '-' (it names the agent in the "
                  "fleet file that the CLI reads too).");
    if (viaSsh) {
        if (!fingerprint.isEmpty())
            return tr("A TLS fingerprint needs an https:// URL; an SSH profile speaks plain HTTP "
                      "inside the tunnel.");
        return sshValidationError();
    }
    if (url.scheme() == QLatin1String("unix") || url.toString().startsWith(u'/'))
        return tr("A unix-socket agent is reached through SSH: choose \"Connect through SSH\" "
                  "and give the socket as the remote end.");
    if (!url.isValid() ||
        (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")))
        return tr("The URL must start with http:// or https://, e.g. http://127.0.0.1:4311.");
    if (url.host().isEmpty())
        return tr("The URL has no host.");
    if (!url.path().isEmpty() && url.path() != QLatin1String("/"))
        return tr("The URL must be the agent's base address, without a path.");
    if (!fingerprint.isEmpty() && !tls::parseFingerprint(fingerprint))
        return tr("The TLS fingerprint must be the agent's SHA-256 fingerprint (AB:CD:…, as "
                  "runbox-agent --print-fingerprint prints it).");
    if (!fingerprint.isEmpty() && url.scheme() != QLatin1String("https"))
        return tr("A TLS fingerprint needs an https:// URL.");
    return {};
}

bool AgentProfile::sameAddress(const AgentProfile& other) const {
    if (viaSsh != other.viaSsh)
        return false;
    if (!viaSsh)
        return url == other.url;
    return sshHost == other.sshHost && sshUser == other.sshUser && sshPort == other.sshPort &&
           sshRemoteOrDefault() == other.sshRemoteOrDefault();
}

QString AgentProfile::newId() {
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

} // namespace runbox::console
