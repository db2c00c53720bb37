#pragma once

#include <QString>

namespace runbox::config {

/// A package index URL as the science environments accept it (docs/environments.md "Package
/// index"): what a build may reach through the egress gateway.
struct IndexUrl {
    QString url;  ///< as given (the operator's text, compared as is with an install's indexUrl)
    QString host; ///< lower-case DNS name
    quint16 port = 443;

    /// The egress allowlist entry of the URL: `host:port`.
    QString allowlistEntry() const { return host + QLatin1Char(':') + QString::number(port); }

    /// Checks @p url: `https://`, a DNS name (letters, digits, `-`, at least two labels; no IP
    /// literal: the egress gateway admits names only), an optional port, no user name or
    /// password, no query, no fragment. Sets @p why (naming the rule broken) and returns false
    /// otherwise.
    static bool parse(const QString& url, IndexUrl* out, QString* why);
};

} // namespace runbox::config
