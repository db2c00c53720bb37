#include "agent/proxy/ProxyOrigin.h"

#include <QRegularExpression>

namespace runbox::proxy {

std::optional<ProxyOrigin> ProxyOrigin::fromHost(const QByteArray& host, const QString& domain) {
    static const QRegularExpression label(QStringLiteral("^([1-9][0-9]{0,4})-(w?[0-9a-f]{16})$"));
    QString name = QString::fromLatin1(host).trimmed().toLower();
    // host [":" port] (RFC 9110 §7.2); an IPv6 literal has no place here.
    if (const qsizetype colon = name.lastIndexOf(QLatin1Char(':')); colon >= 0)
        name.truncate(colon);
    if (name.endsWith(QLatin1Char('.')))
        name.chop(1); // the absolute form of the same name
    const QString suffix = QLatin1Char('.') + domain.toLower();
    if (domain.isEmpty() || !name.endsWith(suffix))
        return std::nullopt;
    const QRegularExpressionMatch m = label.match(name.left(name.size() - suffix.size()));
    if (!m.hasMatch())
        return std::nullopt;
    const int port = m.captured(1).toInt();
    if (port > 65535)
        return std::nullopt;
    return ProxyOrigin{port, m.captured(2)};
}

QString ProxyOrigin::hostName(const QString& domain) const {
    return QStringLiteral("%1-%2.%3").arg(port).arg(workspaceId, domain);
}

} // namespace runbox::proxy
