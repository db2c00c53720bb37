#include "agent/egress/NetworkEpoch.h"

#include "agent/egress/NetworkPolicy.h"

namespace runbox::egress {

namespace {

const QString kModeKey = QStringLiteral("networkPolicy");
const QString kRevisionKey = QStringLiteral("networkAccessRevision");
const QString kDetailKey = QStringLiteral("networkPolicyDetail");

} // namespace

NetworkEpoch NetworkEpoch::of(const NetworkPolicy& policy) {
    NetworkEpoch section;
    section.mode = NetworkPolicy::toString(policy.mode());
    section.revision = policy.revision();
    if (policy.mode() != NetworkPolicy::Mode::None)
        section.policy = policy.toJson();
    return section;
}

NetworkEpoch NetworkEpoch::readFrom(const execution::PermissionEpoch& epoch) {
    NetworkEpoch section;
    section.mode = epoch.features.value(kModeKey).toString(QStringLiteral("none"));
    section.revision = epoch.features.value(kRevisionKey).toString(QStringLiteral("none"));
    section.policy = epoch.features.value(kDetailKey).toObject();
    return section;
}

void NetworkEpoch::writeInto(execution::PermissionEpoch* epoch) const {
    epoch->features.insert(kModeKey, mode);
    epoch->features.insert(kRevisionKey, revision);
    if (policy.isEmpty())
        epoch->features.remove(kDetailKey);
    else
        epoch->features.insert(kDetailKey, policy);
}

} // namespace runbox::egress
