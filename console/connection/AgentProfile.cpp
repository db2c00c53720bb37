#include "console/connection/AgentProfile.h"

#include "shared/TlsPin.h"

#include <QUuid>

namespace runbox::console {

QString AgentProfile::hostAndPort() const {
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

QString AgentProfile::validationError() const {
    if (name.trimmed().isEmpty())
        return tr("Give the agent a name.");
    if (url.scheme() == QLatin1String("unix") || url.toString().startsWith(u'/'))
        return tr("Unix-socket agents are not supported by the console yet; use the agent's "
                  "HTTP or TLS address.");
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

QString AgentProfile::newId() {
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

} // namespace runbox::console
