#pragma once

#include "agent/execution/ExecRequest.h"
#include "agent/sandbox/BwrapCommand.h"
#include "agent/sandbox/SandboxCapability.h"
#include "agent/sandbox/SeccompProfile.h"
#include "agent/sandbox/UidRange.h"

#include <QJsonObject>
#include <QList>
#include <QMap>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace runbox::execution {

/// What every launch on this host shares: the probe's conclusion and the published seccomp
/// programs. Filled once at start-up.
struct SandboxHost {
    sandbox::SandboxCapability capability;
    QMap<sandbox::SeccompProfileKind, QString> seccompPaths;
    QString seccompError;
    QString stateDir;
    /// Set when the agent is privileged (sandbox::agentIsPrivileged): every launch then runs as
    /// its workspace's uid from this range, probes as its first uid (docs/contracts.md "No
    /// sandbox is host root").
    std::optional<sandbox::UidRange> sandboxUids;
    /// Why a privileged agent cannot run sandboxes as unprivileged uids ("" when it can, or
    /// when it is not privileged): strong launches are then refused with 503 (fail closed).
    QString sandboxUserError;
    quint64 maxProcesses = 4096; ///< RLIMIT_NPROC per sandbox
    /// runbox-sandbox-guard next to the agent: every sandbox runs under it so that none
    /// outlives the agent (SandboxProcess); empty when it is missing (warned at start-up).
    QString guardPath;

    bool ready() const {
        return capability.usable && seccompError.isEmpty() && sandboxUserError.isEmpty();
    }
    /// The user probe launches run as (the range's first uid), none for an unprivileged agent.
    std::optional<sandbox::SandboxUser> probeUser() const;
    /// The identity shown inside a sandbox of @p workspaceUid (the agent's own when unset).
    sandbox::SandboxIdentity::Entry identityFor(std::optional<uid_t> workspaceUid) const;
};

/// The settings an execution runs under, fixed when it is created (its permission epoch,
/// docs/contracts.md "Workspaces and executions"): `{"quotas":{…},"environmentId",…}` plus the
/// sections the features record (the egress policy's `networkPolicy`, `networkAccessRevision`,
/// `networkPolicyDetail`; the NPU chips' `npuDevices`). The core keeps the feature sections as
/// they were recorded and reads none of them: each feature reads its own (EgressStage, NpuStage).
struct PermissionEpoch {
    QJsonObject quotas;
    QString environmentId;
    /// Feature sections, top-level keys of the epoch JSON (owned by the feature that wrote them).
    QJsonObject features;

    /// The record's JSON: quotas, environmentId (null when none) and every feature section.
    QJsonObject toJson() const;
};

/// One execution being prepared for launch.
struct LaunchContext {
    ExecRequest request;
    QString executionId;
    QString workspaceId;
    QString workspaceDir;
    PermissionEpoch epoch;
    /// The workspace's host uid (= gid) when the agent runs sandboxes as workspace uids.
    std::optional<uid_t> workspaceUid;
};

/// A launch being assembled by the stages, then built.
struct LaunchPlan {
    sandbox::LaunchSpec spec; ///< stages add extraArgs / extraEnv
    sandbox::SeccompProfileKind seccompProfile = sandbox::SeccompProfileKind::Baseline;
    QStringList commandPrefix; ///< run before the command (e.g. the egress bridge ... --)
    int setupStatusFd = -1;    ///< fd on which the prefix reports (SandboxLaunch::setupStatusFd)
    /// What the prefix's report means (SandboxLaunch::readSetupStatus), from the same stage.
    decltype(sandbox::SandboxLaunch::readSetupStatus) readSetupStatus;
    /// Supplementary groups of the sandbox user (device nodes reached through their group).
    QList<gid_t> supplementaryGroups;
    qint64 maxFileBytes = 0; ///< RLIMIT_FSIZE (SandboxLaunch::maxFileBytes), set by BoundsStage
    int cgroupProcsFd = -1;  ///< SandboxLaunch::cgroupProcsFd, set (and closed) by BoundsStage
    /// More host directories the execution writes into, each bounded like its workspace
    /// (maxWorkspaceBytes, BoundedBackend): an environment build's prefix.
    QStringList diskBoundedPaths;
    sandbox::SandboxLaunch launch; ///< filled by LaunchPlanner once every stage agreed
    std::vector<std::function<void()>> releases; ///< undo what stages acquired, in reverse

    /// Runs the release actions once (reverse order).
    void release();
};

/// A feature that adds to a launch (egress bridge, NPU passthrough…). prepare() may finish
/// later (waiting for a chip, probing a device); it must call @p done exactly once, with an
/// error to refuse the launch (the execution then ends setup_failed, or the request is refused).
class LaunchStage {
public:
    virtual ~LaunchStage() = default;
    virtual void prepare(const LaunchContext& context, LaunchPlan* plan,
                         std::function<void(std::optional<Error>)> done) = 0;
    /// Drops a prepare() still in progress for @p executionId (the execution was cancelled);
    /// its done() must then not be called.
    virtual void abandon(const QString& executionId) { Q_UNUSED(executionId); }
};

/// Turns a validated request into a sandbox launch. The stages run in order, each adding to the
/// plan; then BwrapCommand builds the launch. The sync and the managed paths both come here, so
/// they build identical sandboxes.
class LaunchPlanner final {
public:
    explicit LaunchPlanner(const SandboxHost* host) : m_host(host) {}

    /// Stages run in the order they were added. Not owned.
    void addStage(LaunchStage* stage) { m_stages.append(stage); }

    using Done = std::function<void(std::optional<Error>, std::shared_ptr<LaunchPlan>)>;
    /// Prepares the launch of @p context; @p done gets the plan or the error (503
    /// sandbox_unavailable when the host cannot sandbox, or a stage's error). On error the
    /// stages' acquisitions are already released.
    void plan(const LaunchContext& context, Done done) const;
    /// Abandons an unfinished plan() of @p executionId (cancelled while waiting in a stage).
    void abandon(const QString& executionId) const;

private:
    void runStage(std::shared_ptr<LaunchContext> context, std::shared_ptr<LaunchPlan> plan,
                  qsizetype index, Done done) const;
    void build(const LaunchContext& context, LaunchPlan* plan) const;

    const SandboxHost* m_host;
    QList<LaunchStage*> m_stages;
};

} // namespace runbox::execution
