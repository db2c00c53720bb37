// LightWorkspaceHost: removal of workspaces, with the sweep and quarantine of their uids.
#include "agent/light/HomeDirectory.h"
#include "agent/light/LightWorkspaceEntry.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace runbox::light {

using namespace hostdetail;

std::optional<Error> LightWorkspaceHost::remove(const QString& id) {
    if (m_loop.isLoopThread())
        return Error{ErrorKind::Internal, QStringLiteral("internal_error"),
                     QStringLiteral("light workspaces cannot be removed from the light event "
                                    "thread")};
    const auto workspace = find(id);
    if (!workspace)
        return Error{ErrorKind::NotFound, QStringLiteral("workspace_not_found"),
                     QStringLiteral("no light workspace %1").arg(id)};
    std::shared_ptr<SupervisorChannel> channel;
    {
        std::lock_guard lock(workspace->mutex);
        if (workspace->deleting)
            return Error{ErrorKind::Conflict, QStringLiteral("workspace_deleting"),
                         QStringLiteral("light workspace %1 is already being deleted").arg(id)};
        workspace->deleting = true;
        channel = workspace->channel;
    }
    QString problem;
    bool supervisorGone = true;
    if (channel) {
        channel->cancelAll();
        channel->waitUntilSettled(kSettleTimeoutMs);
        supervisorGone = channel->terminate(kTerminateTimeoutMs);
        m_loop.unwatch(channel->watchKey());
        channel->abandon(QStringLiteral("the workspace was deleted"));
    }
    // With a PID namespace the kernel has ended every process once the supervisor (its init) is
    // gone; the uid sweep then only confirms, in a background batch. Otherwise sweep here.
    const bool deferSweep = m_pidNamespace && supervisorGone && !m_config.synchronousSweep;
    if (!deferSweep) {
        const auto alive =
            UidSweeper::sweep({workspace->uid}, m_config.sweepPasses, m_config.sweepPauseMs);
        if (!alive.empty())
            problem = QStringLiteral("processes of uid %1 survived %2 kill passes")
                          .arg(workspace->uid)
                          .arg(m_config.sweepPasses);
    }
    QString homeError;
    if (!HomeDirectory::removeAs(m_rootFd, workspace->homeName, workspace->uid, &homeError))
        problem += (problem.isEmpty() ? QString() : QStringLiteral("; ")) +
                   QStringLiteral("home not removed: %1").arg(homeError);
    if (!problem.isEmpty())
        m_pool->quarantine(workspace->uid, problem);
    else if (deferSweep)
        m_reclaimer->reclaim(workspace->uid);
    else
        m_pool->release(workspace->uid);
    {
        std::lock_guard lock(m_mutex);
        m_workspaces.remove(id);
    }
    if (!problem.isEmpty())
        return Error{ErrorKind::Internal, QStringLiteral("cleanup_failed"),
                     QStringLiteral("light workspace %1 deleted, but uid %2 is quarantined: %3")
                         .arg(id)
                         .arg(workspace->uid)
                         .arg(problem)};
    return std::nullopt;
}

QList<Error> LightWorkspaceHost::removeAll() {
    QList<Error> errors;
    for (const QString& id : ids()) {
        if (auto error = remove(id))
            errors << *error;
    }
    return errors;
}

void LightWorkspaceHost::flushReclaims() {
    if (m_reclaimer)
        m_reclaimer->flush();
}

void LightWorkspaceHost::setQuarantineListener(UidReclaimer::QuarantineListener listener) {
    if (m_reclaimer)
        m_reclaimer->setQuarantineListener(std::move(listener));
}

} // namespace runbox::light
