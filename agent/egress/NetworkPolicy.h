#pragma once

#include "agent/Error.h"
#include "agent/egress/AddressClassifier.h"
#include "shared/NetworkPolicyGrammar.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace runbox::egress {

/// One `allowedDomains` entry (`host`, `*.host`, `host:port`, `*.host:port`), canonical: the
/// shared grammar's rule, so agent, console and CLI agree on every entry.
using DomainEntry = runbox::DomainRule;

/// The operator's network policy for sandboxes (docs/contracts.md "Egress gateway"):
/// `{"mode": "none"|"domain-allowlist", "allowedDomains": [...], "allowPrivateCidrs": [...]}`.
/// A value type: parse it with fromJson(), compare by revision().
class NetworkPolicy final {
public:
    enum class Mode { None, DomainAllowlist };

    /// The default policy: mode none, no entries.
    NetworkPolicy() = default;

    /// Parses and normalises a policy object. Domain entries follow NetworkPolicyGrammar (trimmed,
    /// lower-cased, one trailing dot removed, punycode), then are deduplicated and sorted; CIDRs
    /// are canonicalised (host bits cleared). A "revision" key is ignored (it is derived), any
    /// other unknown key is refused. On error returns nullopt and sets @p error to
    /// Error{InvalidArgument (400), "invalid_network_policy", message naming the offending
    /// entry}.
    /// Refused entries: IP literals in any notation, '/', '@', whitespace, '*' other than a
    /// leading "*.", single labels (also "*.org"), labels outside [a-z0-9-] (LDH, RFC 1123
    /// §2.1), ports outside 1–65535; `domain-allowlist` without any entry.
    static std::optional<NetworkPolicy> fromJson(const QJsonObject& object, Error* error);

    /// `{"mode", "allowedDomains", "allowPrivateCidrs", "revision"}`.
    QJsonObject toJson() const;
    /// The compact JSON the revision is computed over (keys sorted, no revision).
    QByteArray canonicalJson() const;
    /// "none" for mode none; otherwise lower-case hex SHA-256 (64 chars) of canonicalJson().
    QString revision() const { return m_revision; }

    Mode mode() const { return m_mode; }
    static QString toString(Mode mode);
    const QList<DomainEntry>& allowedDomains() const { return m_allowedDomains; }
    const QList<Cidr>& allowPrivateCidrs() const { return m_allowPrivateCidrs; }

    /// Whether the policy admits @p host on @p port. @p host is folded to lower case and one
    /// trailing dot removed; IP literals never match; mode none matches nothing.
    bool allows(const QString& host, quint16 port) const;

private:
    void updateRevision();

    Mode m_mode = Mode::None;
    QList<DomainEntry> m_allowedDomains;
    QList<Cidr> m_allowPrivateCidrs;
    QString m_revision = QStringLiteral("none");
};

} // namespace runbox::egress
