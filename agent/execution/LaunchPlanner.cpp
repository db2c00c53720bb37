#include "agent/execution/LaunchPlanner.h"

namespace runbox::execution {

namespace {

const QString kQuotasKey = QStringLiteral("quotas");
const QString kEnvironmentKey = QStringLiteral("environmentId");

} // namespace

QJsonObject PermissionEpoch::toJson() const {
    QJsonObject o = features;
    o.insert(kQuotasKey, quotas);
    o.insert(kEnvironmentKey, environmentId.isEmpty() ? QJsonValue() : QJsonValue(environmentId));
    return o;
}

void LaunchPlan::release() {
    for (auto it = releases.rbegin(); it != releases.rend(); ++it)
        if (*it)
            (*it)();
    releases.clear();
}

std::optional<sandbox::SandboxUser> SandboxHost::probeUser() const {
    if (!sandboxUids)
        return std::nullopt;
    return sandbox::SandboxUser{uid_t(sandboxUids->first), {}};
}

sandbox::SandboxIdentity::Entry SandboxHost::identityFor(std::optional<uid_t> workspaceUid) const {
    return workspaceUid ? sandbox::SandboxIdentity::forUid(*workspaceUid)
                        : sandbox::SandboxIdentity::forAgent();
}

void LaunchPlanner::plan(const LaunchContext& context, Done done) const {
    if (!m_host->ready()) {
        QString reason = m_host->capability.unusableReason;
        if (m_host->capability.usable)
            reason = m_host->sandboxUserError.isEmpty()
                         ? QStringLiteral("the seccomp profile could not be built: %1")
                               .arg(m_host->seccompError)
                         : m_host->sandboxUserError;
        done(Error{ErrorKind::Unavailable, QStringLiteral("sandbox_unavailable"), reason}, nullptr);
        return;
    }
    // A privileged agent runs every sandbox as its workspace's uid, never as itself.
    if (m_host->sandboxUids &&
        (!context.workspaceUid || !m_host->sandboxUids->contains(*context.workspaceUid))) {
        done(Error{ErrorKind::Unavailable, QStringLiteral("sandbox_unavailable"),
                   QStringLiteral("workspace %1 has no sandbox uid in %2: the agent runs as "
                                  "root and never starts a sandbox as itself")
                       .arg(context.workspaceId, m_host->sandboxUids->toString())},
             nullptr);
        return;
    }
    auto ctx = std::make_shared<LaunchContext>(context);
    auto plan = std::make_shared<LaunchPlan>();
    sandbox::LaunchSpec& spec = plan->spec;
    spec.workspaceDir = context.workspaceDir;
    spec.cwd = context.request.cwd;
    spec.command = context.request.sandboxCommand();
    spec.userEnv = context.request.env;
    spec.identity = m_host->identityFor(m_host->sandboxUids ? context.workspaceUid : std::nullopt);
    spec.stateDir = m_host->stateDir;
    runStage(ctx, plan, 0, std::move(done));
}

void LaunchPlanner::runStage(std::shared_ptr<LaunchContext> ctx, std::shared_ptr<LaunchPlan> plan,
                             qsizetype index, Done done) const {
    if (index == m_stages.size()) {
        build(*ctx, plan.get());
        done(std::nullopt, plan);
        return;
    }
    m_stages[index]->prepare(*ctx, plan.get(),
                             [this, ctx, plan, index, done](std::optional<Error> err) {
                                 if (err) {
                                     plan->release();
                                     done(err, nullptr);
                                     return;
                                 }
                                 runStage(ctx, plan, index + 1, done);
                             });
}

void LaunchPlanner::abandon(const QString& executionId) const {
    for (LaunchStage* stage : m_stages)
        stage->abandon(executionId);
}

void LaunchPlanner::build(const LaunchContext&, LaunchPlan* plan) const {
    sandbox::LaunchSpec spec = plan->spec;
    spec.seccompPath = m_host->seccompPaths.value(plan->seccompProfile);
    spec.command = plan->commandPrefix + spec.command;
    if (m_host->sandboxUids)
        spec.user = sandbox::SandboxUser{spec.identity.uid, plan->supplementaryGroups};
    plan->launch = sandbox::BwrapCommand::build(m_host->capability, spec);
    plan->launch.setupStatusFd = plan->setupStatusFd;
    plan->launch.readSetupStatus = plan->readSetupStatus;
    plan->launch.maxFileBytes = plan->maxFileBytes;
    plan->launch.cgroupProcsFd = plan->cgroupProcsFd;
    // What the user's code runs, for provenance, without the agent's own prefix.
    plan->launch.command = plan->spec.command;
}

} // namespace runbox::execution
