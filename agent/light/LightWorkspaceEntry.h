#pragma once

// Private to the LightWorkspaceHost implementation files (LightWorkspaceHost.cpp: table and
// capacity; LightWorkspaceSupervision.cpp: supervisor warm-up and exec; LightWorkspaceTeardown.cpp:
// removal, sweep and quarantine; LightWorkspaceSelfTest.cpp): one workspace of the table.

#include "agent/light/LightWorkspaceHost.h"
#include "agent/light/SupervisorChannel.h"

#include <QDateTime>
#include <QMap>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <unistd.h>

namespace runbox::light {

namespace hostdetail {
constexpr int kSettleTimeoutMs = 2000;    ///< a channel's pending messages, at most
constexpr int kTerminateTimeoutMs = 2000; ///< a supervisor's exit after its socket closed
constexpr int kControlSendBufferBytes = 1 << 20;
/// An exec whose send failed waits this long for the supervisor's SetupFailed to be read.
constexpr int kSetupReasonWaitMs = 500;

inline qint64 nowMs() {
    return QDateTime::currentMSecsSinceEpoch();
}
} // namespace hostdetail

/// One workspace of the host's table: its uid, home, confinement and supervisor channel.
struct LightWorkspaceHost::Workspace {
    QString id;
    uid_t uid = 0;
    int homeFd = -1;
    QByteArray homeName; ///< the home's name in the root (a spare's own, or the id)
    QString home;
    Rlimits limits;
    QList<quint16> ports;
    bool udp = false;
    bool egressGateway = false;
    std::function<void(const QString&, int)> onGatewayListener;
    QString policyMode;
    QMap<QString, QString> env; // memory only: never written anywhere
    QString environmentPrefix;  ///< the environment revision's prefix ("" = none)
    int environmentFd = -1;     ///< it, O_PATH|O_DIRECTORY, opened at create; given to each spawn
    qint64 createdMs = 0;
    std::atomic<qint64> lastUsedMs{0};
    std::mutex mutex; // guards channel and deleting
    std::shared_ptr<SupervisorChannel> channel;
    bool deleting = false;

    ~Workspace() {
        if (homeFd >= 0)
            ::close(homeFd);
        if (environmentFd >= 0)
            ::close(environmentFd);
    }
};

} // namespace runbox::light
