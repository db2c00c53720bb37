#pragma once

#include <QList>
#include <QString>
#include <QStringView>

#include <optional>

namespace runbox {

/// One canonical `allowedDomains` entry of the network policy (agent/egress/README.md): `host`,
/// `*.host`, `host:port` or `*.host:port`.
struct DomainRule {
    QString host;          ///< lower-case punycode, no trailing dot, without the "*." prefix
    bool wildcard = false; ///< "*.host": strict subdomains of host at any depth, never host itself
    quint16 port = 0;      ///< 0 = any port

    /// Canonical text as the agent stores and shows it, e.g. "*.example.org:443".
    QString toString() const;
    /// Whole-label match of an already canonical host name (see canonicalHost()) and a port.
    bool matches(const QString& canonicalHost, quint16 port) const;
    friend bool operator==(const DomainRule&, const DomainRule&) = default;
};

/// The answer to "would this host be allowed?".
struct HostVerdict {
    bool allowed = false;
    QString host;      ///< the canonical host that was checked (empty when malformed)
    quint16 port = 0;  ///< the port that was checked (0 when none was given: any port)
    QString matchedBy; ///< canonical text of the first rule that matched, when allowed
    QString reason;    ///< human text (English) saying why, for both outcomes
};

/// The network-policy grammar, shared by the agent, the console and the CLI so that
/// they accept and refuse exactly the same entries.
///
/// Domain entries are trimmed, lower-cased, stripped of one trailing dot and converted to
/// punycode (IDNA via QUrl::toAce). Refused: empty entries; whitespace, '/', '@' anywhere; IP
/// literals in any notation (dotted, decimal `2130706433`, octal `0177.0.0.1`, hex `0x7f.1`,
/// short `127.1`, bracketed or bare IPv6) — the WHATWG URL rule "the last label is a number";
/// '*' anywhere but a leading "*."; a single label (also "*.org"); labels that are not LDH
/// (letters, digits, inner hyphens, 1–63 characters; RFC 1123 §2.1) or a name over 253
/// characters; a port that is not 1–65535 in decimal digits.
///
/// CIDR entries (`allowPrivateCidrs`) are "a.b.c.d/len", "v6/len" or a bare address (/32,
/// /128); they are canonicalised with the host bits cleared, an IPv4-mapped prefix
/// (::ffff:0:0/96 or longer) becomes the IPv4 prefix.
///
/// Error texts are English sentences without the entry itself; the constant ones are marked
/// with QT_TRANSLATE_NOOP in context "runbox::NetworkPolicyGrammar", so a UI can show them
/// translated with QCoreApplication::translate("runbox::NetworkPolicyGrammar", text).
class NetworkPolicyGrammar final {
public:
    /// Parses one allowedDomains entry. On refusal returns nullopt and sets @p error to an
    /// English sentence saying what is wrong (without the entry itself).
    static std::optional<DomainRule> parseDomain(const QString& entry, QString* error = nullptr);
    /// Parses one allowPrivateCidrs entry into its canonical text ("10.0.0.0/8", "fd00::/8").
    /// On refusal returns nullopt and sets @p error.
    static std::optional<QString> parseCidr(const QString& entry, QString* error = nullptr);

    /// Whether @p host (a host name without port) is an IP literal in any notation the
    /// resolvers accept (see the class comment). A trailing dot is ignored.
    static bool looksLikeIpLiteral(QStringView host);

    /// Canonical form of a host name to check against rules (lower case, one trailing dot
    /// removed, punycode); empty when it is not a usable host name.
    static QString canonicalHost(const QString& host);

    /// Checks "host" or "host:port" against @p rules as the gateway would for mode
    /// domain-allowlist (before DNS; private addresses are decided later by the gateway).
    static HostVerdict check(const QList<DomainRule>& rules, const QString& hostAndPort);

    /// Parses every entry; returns the canonical, deduplicated, sorted list, and for each
    /// refused entry its index in @p entries and the reason in @p refused.
    struct ListResult {
        QList<DomainRule> rules;
        QList<QPair<int, QString>> refused;
    };
    static ListResult parseDomainList(const QStringList& entries);
};

} // namespace runbox
