#pragma once

#include "agent/execution/LaunchPlanner.h"

#include <QJsonObject>
#include <QString>

namespace runbox::egress {

class NetworkPolicy;

/// The egress feature's sections of a permission epoch (docs/contracts.md "Workspaces and
/// executions"): `networkPolicy` (the mode, "none" or "domain-allowlist"),
/// `networkAccessRevision` (the policy's revision, "none" for mode none) and
/// `networkPolicyDetail` (the whole policy object, absent for mode none). Written when an
/// execution is created (EgressService::snapshotInto), read when it launches (EgressStage).
struct NetworkEpoch {
    QString mode = QStringLiteral("none");
    QString revision = QStringLiteral("none");
    QJsonObject policy; ///< NetworkPolicy::toJson() of the policy in force; empty for mode none

    /// What @p policy records.
    static NetworkEpoch of(const NetworkPolicy& policy);
    /// The sections @p epoch carries (the defaults where they are missing).
    static NetworkEpoch readFrom(const execution::PermissionEpoch& epoch);
    /// Writes the three sections into @p epoch.
    void writeInto(execution::PermissionEpoch* epoch) const;
};

} // namespace runbox::egress
