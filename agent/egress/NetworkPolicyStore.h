#pragma once

#include "agent/egress/NetworkPolicy.h"
#include "agent/store/AuditedSetting.h"

#include <optional>

namespace runbox::egress {

/// The network policy setting (agent/egress/README.md): stored as one canonical JSON object under
/// the settings key `network.policy` (revision not stored: it is derived), every change with its
/// audit row in the same transaction (store::SettingsRepository). A missing key is the default
/// policy, mode `none`. current() is served from memory; update() writes through. Thread-safe.
class NetworkPolicyStore final {
public:
    static constexpr const char* kKey = "network.policy";

    explicit NetworkPolicyStore(const store::Database& database)
        : m_setting(database, QLatin1String(kKey)) {}

    /// Loads the stored policy. Errors: a stored value that no longer parses (Internal (500)
    /// store_error, the agent refuses to start rather than guess), store errors.
    std::optional<Error> initialize();

    /// The policy in force (mode none before initialize()).
    NetworkPolicy current() const;

    /// Replaces the policy with @p body (`{"mode","allowedDomains","allowPrivateCidrs"}`, a
    /// "revision" key is ignored; see NetworkPolicy::fromJson() for the 400s) as @p tokenId at
    /// @p nowMs (0 = now). Writes one audit row when the canonical policy changed, none when it
    /// is the same. @p applied receives the policy now in force.
    std::optional<Error> update(const QJsonObject& body, const QString& tokenId, qint64 nowMs,
                                NetworkPolicy* applied);

    /// The newest change, std::nullopt in @p out if it was never changed.
    std::optional<Error> lastChange(std::optional<store::AuditEntry>* out) const;

private:
    /// store::AuditedSetting's loader.
    static std::optional<Error> fromStored(const QHash<QString, QJsonValue>& stored,
                                           NetworkPolicy* out);

    store::AuditedSetting<NetworkPolicy> m_setting;
};

} // namespace runbox::egress
