// LightWorkspaceHost: the start-up self-test (a real workspace, exec, remove).
#include "agent/light/LightProbe.h"
#include "agent/light/LightWorkspaceEntry.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace runbox::light {

using namespace hostdetail;

bool LightWorkspaceHost::runSelfTest(QString* error) {
    LightCreateResult created;
    if (auto failure = create(LightWorkspaceOptions{}, 1, &created)) {
        *error = failure->message;
        return false;
    }
    if (created.workspaces.isEmpty()) {
        *error = QStringLiteral("no uid or capacity for a scratch workspace");
        return false;
    }
    const QString id = created.workspaces.first().id;
    LightExecRequest request;
    request.argv = {QStringLiteral("true")};
    request.timeoutMs = 10000;
    Error execError;
    const auto execution = exec(id, request, &execError);
    bool ok = execution && execution->waitForFinished(15000);
    if (!execution) {
        *error = execError.message;
    } else if (!ok) {
        *error = QStringLiteral("`true` did not finish");
    } else {
        const LightExitStatus status = execution->status();
        const auto confinement = info(id)->confinement;
        ok = status.kind == LightExitStatus::Kind::Exited && status.exitCode == 0 &&
             confinement.landlockAbi >= m_config.minLandlockAbi && confinement.seccomp &&
             confinement.pidNamespace == m_pidNamespace && confinement.privateProc == m_privateProc;
        if (!ok)
            *error = status.message.isEmpty()
                         ? QStringLiteral("`true` ended as %1 under confinement %2")
                               .arg(status.stateName())
                               .arg(confinement.landlockAbi)
                         : status.message;
    }
    if (auto failure = remove(id)) {
        *error = failure->message;
        return false;
    }
    return ok;
}

} // namespace runbox::light
