#include "agent/config/IndexUrl.h"

#include <QRegularExpression>
#include <QUrl>

namespace runbox::config {

bool IndexUrl::parse(const QString& url, IndexUrl* out, QString* why) {
    // Checked on the text first: QUrl accepts and rewrites much that pip would read otherwise.
    static const QRegularExpression shape(
        QStringLiteral("^https://([a-z0-9.-]+)(:([0-9]{1,5}))?(/[A-Za-z0-9._~/%+-]*)?$"),
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression dnsName(QStringLiteral(
        "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$"));
    static const QRegularExpression ipv4(QStringLiteral("^[0-9.]+$"));
    const QUrl parsed(url, QUrl::StrictMode);
    if (!url.startsWith(QLatin1String("https://"), Qt::CaseInsensitive))
        *why = QStringLiteral("it must start with https://");
    else if (!parsed.isValid())
        *why = QStringLiteral("it is not a valid URL");
    else if (!parsed.userInfo().isEmpty() || url.contains(QLatin1Char('@')))
        *why = QStringLiteral("it must not carry credentials (user:password@)");
    else if (url.contains(QLatin1Char('?')))
        *why = QStringLiteral("it must not have a query");
    else if (url.contains(QLatin1Char('#')))
        *why = QStringLiteral("it must not have a fragment");
    else if (const auto m = shape.match(url); !m.hasMatch())
        *why = QStringLiteral("the host must be a DNS name and the path plain characters");
    else if (const QString host = m.captured(1).toLower();
             !dnsName.match(host).hasMatch() || ipv4.match(host).hasMatch() ||
             !host.section(QLatin1Char('.'), -1).front().isLetter())
        // A top-level label starts with a letter (RFC 3696 section 2: never all-numeric), which
        // also keeps out addresses written as `0x7f.1` that resolvers read as IPv4.
        *why = QStringLiteral("the host %1 is not a DNS name of two labels or more, its last "
                              "starting with a letter")
                   .arg(host);
    else if (const int port = m.captured(3).isEmpty() ? 443 : m.captured(3).toInt();
             port < 1 || port > 65535)
        *why = QStringLiteral("the port %1 is not 1-65535").arg(m.captured(3));
    else {
        *out = IndexUrl{url, host, quint16(port)};
        return true;
    }
    return false;
}

} // namespace runbox::config
