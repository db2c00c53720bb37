#pragma once

#include "agent/config/AgentConfig.h"
#include "agent/sandbox/SandboxCapability.h"
#include "agent/sandbox/SeccompProfile.h"
#include "agent/workspace/WorkspaceRegistry.h"

#include <QByteArray>
#include <QMap>
#include <QString>

namespace runbox::api {

/// What the route handlers share: configuration, the probe's conclusion, the seccomp programs,
/// the token and the workspaces. Owned by main(); lives as long as the agent.
struct AgentContext {
    config::AgentConfig config;
    QByteArray agentToken;
    sandbox::SandboxCapability capability;
    QMap<sandbox::SeccompProfileKind, QString> seccompPaths; ///< published BPF files
    QString seccompError; ///< why a profile could not be built (sandbox then unusable)
    QString identityDir;  ///< synthetic passwd/group
    workspace::WorkspaceRegistry* workspaces = nullptr;
    qint64 startedAtMs = 0;
    bool rAvailable = false; ///< /usr/bin/R exists

    /// True when executions may run: bwrap usable and the seccomp programs built.
    bool sandboxReady() const { return capability.usable && seccompError.isEmpty(); }
    /// The 503 `sandbox_unavailable` message with the reason and the sysctl hints.
    QString unavailableReason() const;
};

} // namespace runbox::api
