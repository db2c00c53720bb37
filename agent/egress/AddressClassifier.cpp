#include "agent/egress/AddressClassifier.h"

#include "shared/NetworkPolicyGrammar.h"

#include <array>
#include <cstring>

namespace runbox::egress {

namespace {

struct V4Range {
    quint32 base;
    int prefix;
    AddressClass addressClass;
};

constexpr quint32 v4(quint8 a, quint8 b, quint8 c, quint8 d) {
    return (quint32(a) << 24) | (quint32(b) << 16) | (quint32(c) << 8) | quint32(d);
}

// IANA IPv4 Special-Purpose Address Registry (RFC 6890 §2.2.2 and its updates). Most specific
// first: the first matching entry wins. Entries the registry marks globally reachable (AS112
// 192.31.196/24 and 192.175.48/24, AMT 192.52.193/24) are left public on purpose.
constexpr std::array kV4Ranges{
    V4Range{v4(0, 0, 0, 0), 32, AddressClass::Unspecified},           // RFC 1122 §3.2.1.3
    V4Range{v4(0, 0, 0, 0), 8, AddressClass::Reserved},               // "this network", RFC 791
    V4Range{v4(10, 0, 0, 0), 8, AddressClass::Private},               // RFC 1918
    V4Range{v4(100, 64, 0, 0), 10, AddressClass::SharedAddressSpace}, // RFC 6598 (CGNAT)
    V4Range{v4(127, 0, 0, 0), 8, AddressClass::Loopback},             // RFC 1122 §3.2.1.3
    V4Range{v4(169, 254, 0, 0), 16, AddressClass::LinkLocal},         // RFC 3927 (cloud metadata)
    V4Range{v4(172, 16, 0, 0), 12, AddressClass::Private},            // RFC 1918
    V4Range{v4(192, 0, 0, 0), 24, AddressClass::Reserved},            // IETF assignments, RFC 6890
    V4Range{v4(192, 0, 2, 0), 24, AddressClass::Documentation},       // TEST-NET-1, RFC 5737
    V4Range{v4(192, 88, 99, 0), 24, AddressClass::Reserved},          // 6to4 relay, RFC 7526
    V4Range{v4(192, 168, 0, 0), 16, AddressClass::Private},           // RFC 1918
    V4Range{v4(198, 18, 0, 0), 15, AddressClass::Benchmarking},       // RFC 2544
    V4Range{v4(198, 51, 100, 0), 24, AddressClass::Documentation},    // TEST-NET-2, RFC 5737
    V4Range{v4(203, 0, 113, 0), 24, AddressClass::Documentation},     // TEST-NET-3, RFC 5737
    V4Range{v4(224, 0, 0, 0), 4, AddressClass::Multicast},            // RFC 5771
    V4Range{v4(255, 255, 255, 255), 32, AddressClass::Broadcast},     // RFC 919, RFC 8190
    V4Range{v4(240, 0, 0, 0), 4, AddressClass::Reserved},             // RFC 1112 §4
};

struct V6Range {
    std::array<quint8, 16> base;
    int prefix;
    AddressClass addressClass;
};

// IANA IPv6 Special-Purpose Address Registry (RFC 6890 §2.2.3 and updates). Embedded-IPv4
// forms (::ffff:0:0/96, 64:ff9b::/96, 2002::/16, ::/96) never reach this table: canonical()
// turns them into IPv4 first. Anything outside 2000::/3 (the only block IANA allocates as
// global unicast, RFC 4291 §2.4 / RFC 3587) is Reserved after this table.
const std::array kV6Ranges{
    V6Range{{}, 128, AddressClass::Unspecified}, // RFC 4291 §2.5.2
    V6Range{{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 128, AddressClass::Loopback},
    V6Range{{0x00, 0x64, 0xff, 0x9b, 0, 1}, 48, AddressClass::Reserved}, // RFC 8215 NAT64
    V6Range{{0x01, 0x00}, 64, AddressClass::Reserved},                   // RFC 6666 discard
    V6Range{{0x20, 0x01, 0x0d, 0xb8}, 32, AddressClass::Documentation},  // RFC 3849
    V6Range{{0x20, 0x01, 0x00, 0x00}, 23, AddressClass::Reserved}, // RFC 2928, Teredo RFC 4380
    V6Range{{0x3f, 0xff}, 20, AddressClass::Documentation},        // RFC 9637
    V6Range{{0x5f, 0x00}, 16, AddressClass::Reserved},             // SRv6 SIDs, RFC 9602
    V6Range{{0xfc}, 7, AddressClass::UniqueLocal},                 // RFC 4193
    V6Range{{0xfe, 0x80}, 10, AddressClass::LinkLocal},            // RFC 4291 §2.5.6
    V6Range{{0xfe, 0xc0}, 10, AddressClass::SiteLocal},            // RFC 3879 (deprecated)
    V6Range{{0xff}, 8, AddressClass::Multicast},                   // RFC 4291 §2.7
};

bool prefixMatches(const quint8* address, const quint8* base, int prefix) {
    const int fullBytes = prefix / 8;
    if (std::memcmp(address, base, size_t(fullBytes)) != 0)
        return false;
    const int restBits = prefix % 8;
    if (restBits == 0)
        return true;
    const quint8 mask = quint8(0xff << (8 - restBits));
    return (address[fullBytes] & mask) == (base[fullBytes] & mask);
}

AddressClass classifyV4(quint32 address) {
    for (const V4Range& range : kV4Ranges) {
        const quint32 mask = range.prefix == 0 ? 0 : ~quint32(0) << (32 - range.prefix);
        if ((address & mask) == (range.base & mask))
            return range.addressClass;
    }
    return AddressClass::Public;
}

AddressClass classifyV6(const Q_IPV6ADDR& address) {
    for (const V6Range& range : kV6Ranges) {
        if (prefixMatches(address.c, range.base.data(), range.prefix))
            return range.addressClass;
    }
    if ((address.c[0] & 0xe0) != 0x20) // outside 2000::/3
        return AddressClass::Reserved;
    return AddressClass::Public;
}

bool allZero(const quint8* bytes, int count) {
    for (int i = 0; i < count; ++i) {
        if (bytes[i] != 0)
            return false;
    }
    return true;
}

quint32 v4At(const quint8* bytes) {
    return v4(bytes[0], bytes[1], bytes[2], bytes[3]);
}

// The form the gateway dials: IPv4-mapped addresses as plain IPv4 (same peer, works without a
// dual-stack socket); every other address exactly as the resolver returned it. NAT64 and 6to4
// addresses must be dialled as IPv6: their embedded IPv4 is only what they are checked as.
QHostAddress dialForm(const QHostAddress& address) {
    bool isMapped = false;
    const quint32 mapped = address.toIPv4Address(&isMapped);
    if (address.protocol() == QAbstractSocket::IPv6Protocol && isMapped)
        return QHostAddress(mapped);
    return address;
}

} // namespace

QString toString(AddressClass addressClass) {
    switch (addressClass) {
    case AddressClass::Public:
        return QStringLiteral("public");
    case AddressClass::Unspecified:
        return QStringLiteral("unspecified");
    case AddressClass::Loopback:
        return QStringLiteral("loopback");
    case AddressClass::Private:
        return QStringLiteral("private");
    case AddressClass::SharedAddressSpace:
        return QStringLiteral("shared_address_space");
    case AddressClass::LinkLocal:
        return QStringLiteral("link_local");
    case AddressClass::Multicast:
        return QStringLiteral("multicast");
    case AddressClass::Broadcast:
        return QStringLiteral("broadcast");
    case AddressClass::Reserved:
        return QStringLiteral("reserved");
    case AddressClass::Documentation:
        return QStringLiteral("documentation");
    case AddressClass::Benchmarking:
        return QStringLiteral("benchmarking");
    case AddressClass::UniqueLocal:
        return QStringLiteral("unique_local");
    case AddressClass::SiteLocal:
        return QStringLiteral("site_local");
    case AddressClass::Invalid:
        break;
    }
    return QStringLiteral("invalid");
}

Cidr Cidr::parse(const QString& text) {
    // Canonical text (host bits cleared, IPv4-mapped prefixes as IPv4) from the shared grammar,
    // so the policy, the console and the CLI agree on every prefix.
    const std::optional<QString> canonical = NetworkPolicyGrammar::parseCidr(text);
    if (!canonical)
        return {};
    const QPair<QHostAddress, int> subnet = QHostAddress::parseSubnet(*canonical);
    return Cidr{subnet.first, subnet.second};
}

QString Cidr::toString() const {
    return network.toString() + QLatin1Char('/') + QString::number(prefixLength);
}

bool Cidr::contains(const QHostAddress& address) const {
    return isValid() && address.isInSubnet(network, prefixLength);
}

QHostAddress AddressClassifier::canonical(const QHostAddress& address) {
    if (address.protocol() != QAbstractSocket::IPv6Protocol)
        return address;
    const Q_IPV6ADDR bytes = address.toIPv6Address();
    const quint8* b = bytes.c;
    const quint32 last32 = v4At(b + 12);
    if (allZero(b, 10) && b[10] == 0xff && b[11] == 0xff) // ::ffff:a.b.c.d, RFC 4291 §2.5.5.2
        return QHostAddress(last32);
    if (allZero(b, 8) && b[8] == 0xff && b[9] == 0xff && b[10] == 0 && b[11] == 0)
        return QHostAddress(last32);  // ::ffff:0:a.b.c.d, RFC 2765 §2.1
    if (allZero(b, 12) && last32 > 1) // ::a.b.c.d, RFC 4291 §2.5.5.1 (not :: nor ::1)
        return QHostAddress(last32);
    static constexpr quint8 kNat64[12] = {0x00, 0x64, 0xff, 0x9b};
    if (std::memcmp(b, kNat64, sizeof kNat64) == 0) // 64:ff9b::/96, RFC 6052 §2.1
        return QHostAddress(last32);
    if (b[0] == 0x20 && b[1] == 0x02) // 2002:V4ADDR::/48, RFC 3056 §2
        return QHostAddress(v4At(b + 2));
    return address;
}

AddressClass AddressClassifier::classify(const QHostAddress& address) {
    const QHostAddress canonicalAddress = canonical(address);
    switch (canonicalAddress.protocol()) {
    case QAbstractSocket::IPv4Protocol:
        return classifyV4(canonicalAddress.toIPv4Address());
    case QAbstractSocket::IPv6Protocol:
        return classifyV6(canonicalAddress.toIPv6Address());
    default:
        return AddressClass::Invalid;
    }
}

bool AddressClassifier::isDialable(const QHostAddress& address,
                                   const QList<Cidr>& allowPrivateCidrs) {
    const AddressClass addressClass = classify(address);
    switch (addressClass) {
    case AddressClass::Public:
        return true;
    case AddressClass::Invalid:
    case AddressClass::Unspecified:
    case AddressClass::Multicast:
    case AddressClass::Broadcast:
        return false;
    default:
        break;
    }
    const QHostAddress canonicalAddress = canonical(address);
    for (const Cidr& cidr : allowPrivateCidrs) {
        if (cidr.contains(canonicalAddress) || cidr.contains(address))
            return true;
    }
    return false;
}

AddressCheck AddressClassifier::check(const QString& host, const QList<QHostAddress>& addresses,
                                      const QList<Cidr>& allowPrivateCidrs) {
    AddressCheck result;
    if (addresses.isEmpty()) {
        result.reason = QStringLiteral("no_addresses");
        result.message = QStringLiteral("%1 resolved to no address").arg(host);
        return result;
    }
    for (const QHostAddress& address : addresses) {
        if (!isDialable(address, allowPrivateCidrs)) {
            result.dialable.clear();
            result.reason = QStringLiteral("address_refused");
            result.message = QStringLiteral("%1 resolves to %2 (%3), which is not a public "
                                            "address and not inside allowPrivateCidrs")
                                 .arg(host, address.toString(), toString(classify(address)));
            return result;
        }
        const QHostAddress dial = dialForm(address);
        if (!result.dialable.contains(dial))
            result.dialable.append(dial);
    }
    result.allowed = true;
    return result;
}

} // namespace runbox::egress
