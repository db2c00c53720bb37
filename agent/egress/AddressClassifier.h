#pragma once

#include <QHostAddress>
#include <QList>
#include <QString>

namespace runbox::egress {

/// What an IP address is, per the IANA special-purpose address registries (RFC 6890 and the RFCs
/// that updated them). Everything but `Public` is refused by the egress gateway unless the
/// operator lists it in `allowPrivateCidrs` (`Unspecified`, `Multicast` and `Broadcast` never).
enum class AddressClass {
    Public,             ///< globally reachable unicast
    Unspecified,        ///< 0.0.0.0, :: (dialling them reaches the local host)
    Loopback,           ///< 127/8, ::1
    Private,            ///< RFC 1918: 10/8, 172.16/12, 192.168/16
    SharedAddressSpace, ///< RFC 6598 CGNAT: 100.64/10
    LinkLocal,          ///< 169.254/16 (incl. 169.254.169.254 metadata), fe80::/10
    Multicast,          ///< 224/4, ff00::/8
    Broadcast,          ///< 255.255.255.255
    Reserved,           ///< 0/8, 240/4, 192.0.0/24, 192.88.99/24, non-2000::/3 IPv6, 2001::/23…
    Documentation,      ///< 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20
    Benchmarking,       ///< 198.18/15
    UniqueLocal,        ///< fc00::/7
    SiteLocal,          ///< fec0::/10 (deprecated)
    Invalid,            ///< not an address
};

/// Stable snake_case name of @p addressClass ("public", "loopback", "link_local", …).
QString toString(AddressClass addressClass);

/// A network prefix such as 10.0.0.0/8 or fd00::/8, always stored with host bits cleared.
struct Cidr {
    QHostAddress network;
    int prefixLength = -1;

    /// Parses "a.b.c.d/len", "v6/len" or a bare address (/32, /128) via QHostAddress::parseSubnet;
    /// an IPv4-mapped IPv6 prefix (::ffff:0:0/96 or longer) becomes the IPv4 prefix. Returns an
    /// invalid Cidr (prefixLength -1) when @p text is not a prefix.
    static Cidr parse(const QString& text);
    bool isValid() const { return prefixLength >= 0; }
    /// Canonical text: "10.0.0.0/8", "fd00::/8" (lower-case, compressed).
    QString toString() const;
    bool contains(const QHostAddress& address) const;
    friend bool operator==(const Cidr& a, const Cidr& b) {
        return a.prefixLength == b.prefixLength && a.network == b.network;
    }
};

/// The outcome of checking every address one DNS answer returned.
struct AddressCheck {
    bool allowed = false;
    /// Addresses to dial, in resolver order, duplicates removed, IPv4-mapped ones as IPv4.
    QList<QHostAddress> dialable;
    /// When refused: "no_addresses" or "address_refused"; message names the address and class.
    QString reason;
    QString message;
};

/// Canonicalises and classifies IP addresses for the egress gateway (docs/contracts.md "Egress
/// gateway").
class AddressClassifier final {
public:
    /// The IPv4 address embedded in @p address when it is IPv4-mapped (::ffff:0:0/96,
    /// RFC 4291 §2.5.5.2), IPv4-translated (::ffff:0:0:0/96, RFC 2765 §2.1), IPv4-compatible
    /// (::/96 except :: and ::1, RFC 4291 §2.5.5.1), NAT64 well-known prefix (64:ff9b::/96,
    /// RFC 6052 §2.1) or 6to4 (2002::/16, RFC 3056 §2); otherwise @p address itself.
    static QHostAddress canonical(const QHostAddress& address);
    /// The class of canonical(@p address).
    static AddressClass classify(const QHostAddress& address);
    /// Whether the gateway may dial @p address: Public, or inside one of @p allowPrivateCidrs
    /// (matched on the canonical and on the original form). Unspecified, multicast and broadcast
    /// addresses are never dialable.
    static bool isDialable(const QHostAddress& address, const QList<Cidr>& allowPrivateCidrs);
    /// Checks a whole DNS answer for @p host: refused as a whole if it is empty or if any one
    /// address is not dialable (a mixed public + private answer is refused, not filtered).
    static AddressCheck check(const QString& host, const QList<QHostAddress>& addresses,
                              const QList<Cidr>& allowPrivateCidrs);
};

} // namespace runbox::egress
