#pragma once

#include "agent/light/LightPrivileges.h"
#include "agent/light/UidPool.h"
#include "agent/light/helper/Rlimits.h"

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <functional>
#include <optional>
#include <sys/types.h>

namespace runbox::light {

/// Host-wide settings of the light tier.
struct LightHostConfig {
    QString workspaceRoot;  ///< homes live at <root>/<16 hex>; created 0711, marked as ours
    QString supervisorPath; ///< the runbox-light-supervisor binary
    UidPool::Config uids;   ///< uid range (default 20000..64999)
    int minLandlockAbi = 6; ///< below it the tier is unavailable (fail closed)
    int capacity = 4096;    ///< maxLightWorkspaces; create() answers "rejected" past it
    QList<quint16> controlPlanePorts;  ///< never reachable from a workspace (the agent's port…)
    QStringList extraReadExecutePaths; ///< more read+execute trees for every workspace
    /// Where environment revisions live (`<state>/environments`): a workspace's
    /// LightWorkspaceOptions::environmentPrefix must be `<root>/e<16 hex>/r<16 hex>` (the zygote
    /// checks it); "" = no workspace gets an environment.
    QString environmentRoot;
    /// The host interpreters a workspace with an environment gets masked
    /// (EnvironmentStage::hostInterpreters: regular files under /usr, no link).
    QStringList maskedInterpreters;
    bool pidNamespace =
        true; ///< a PID namespace per workspace (init = its supervisor), if privileged
    bool privateProc =
        true; ///< with it, a mount namespace + fresh /proc showing only the workspace
    /// Start each workspace's supervisor in the background right after create(), so the first
    /// exec finds it ready (costs one small process per idle workspace); else at the first exec.
    bool prestartSupervisors = true;
    /// Empty homes kept ready by a background thread (SpareHomes), so a create hands one to the
    /// uid instead of making directories on the request path; 0 = make every home on demand.
    int spareHomes = 256;
    bool selfTest = true;  ///< start() runs `true` in a scratch workspace before saying yes
    int sweepPasses = 100; ///< uid sweep: kill + rescan rounds before quarantine
    int sweepPauseMs = 5;  ///< pause between rounds
    /// With a PID namespace the kernel already ended every process when remove() returns, and the
    /// uid sweep that confirms it runs in background batches (a failure quarantines the uid and
    /// reaches the quarantine listener). True makes remove() sweep itself and answer 500 on
    /// failure, at the cost of one /proc scan per delete.
    bool synchronousSweep = false;
};

/// What confines a workspace's processes (reported by /v1/health and on each workspace).
struct LightConfinement {
    int landlockAbi = 0;
    bool filesystem = false;        ///< Landlock path rules
    bool network = false;           ///< TCP bind denied, connect only to allowed ports (ABI ≥ 4)
    bool scopeAbstractUnix = false; ///< ABI ≥ 6
    bool scopeSignal = false;       ///< ABI ≥ 6
    bool pidNamespace = false;
    bool privateProc = false;
    /// /run, /tmp, /var/tmp, /dev/shm covered by empty read-only tmpfs in the workspace's mount
    /// namespace, so host unix sockets there cannot be reached by path (Landlock does not
    /// restrict connect(2) to pathname sockets). False when one of them holds the workspace root.
    bool hostRuntimeDirsMasked = false;
    /// The light seccomp profile (LightSeccompProfile): native ABI only, no io_uring, socket(2)
    /// arguments checked.
    bool seccomp = false;
    bool inetStream = false;   ///< AF_INET/AF_INET6 TCP sockets may be created
    bool inetDatagram = false; ///< AF_INET/AF_INET6 UDP sockets may be created (to anywhere)
    /// A network namespace of its own (only `lo`) whose one way out is the egress gateway at
    /// 127.0.0.1:18118 (WorkspaceNetwork): the domain allowlist, for light workspaces.
    bool egressGateway = false;
    QList<quint16> tcpConnectPorts; ///< the Landlock TCP connect rules
    QString policyMode;             ///< the network policy's mode when the workspace was made

    /// `{"mode":"landlock","landlockAbi":7,"filesystem":true,"network":true,
    ///   "scopedAbstractUnixSockets":true,"scopedSignals":true,"pidNamespace":true,
    ///   "privateProc":true,"hostRuntimeDirsMasked":true,"seccomp":true,
    ///   "networkAccess":{"policyMode":"none","families":["unix","inet","inet6"],
    ///   "tcpConnectPorts":[8080],"udp":false,"egressGateway":null,"summary":"…"}}`
    /// (`networkAccess` only on a workspace's own confinement; see docs/light-workspaces.md).
    QJsonObject toJson() const;
    /// The `networkAccess` object alone; its `egressGateway` is null or
    /// `{"proxy":"http://127.0.0.1:18118","networkNamespace":true,"decisions":"per workspace"}`.
    QJsonObject networkAccessJson() const;
    /// The proxy URL a workspace with egressGateway uses.
    static QString gatewayProxyUrl();
    /// From a supervisor's Hello flags (wire::kHas*).
    static LightConfinement fromFlags(int abi, std::uint32_t flags);
};

/// Whether light workspaces can run here, and why not.
struct LightAvailability {
    bool available = false;
    QString reason;       ///< why not ("" when available)
    QStringList warnings; ///< what is weaker than the full design, each naming what is lost
    LightPrivileges privileges;
    LightConfinement expected;
    /// `{"available":bool,"reason":"…","warnings":[…],"confinement":{…}}`
    QJsonObject toJson() const;
};

/// Per-workspace choices made at creation.
struct LightWorkspaceOptions {
    QMap<QString, QString> env; ///< applied to every exec, under the exec's own env; memory only
    Rlimits limits;
    QList<quint16> allowedConnectPorts; ///< TCP connect allowed only to these (network policy)
    /// UDP sockets (to and from anywhere: Landlock cannot filter UDP). The operator's grant.
    bool allowUdp = false;
    /// The network policy's mode in force at creation ("none", "domain-allowlist"), for
    /// `confinement.networkAccess`; "" when unknown (the host alone, in tests).
    QString policyMode;
    /// Reach the egress gateway from a private network (docs/light-workspaces.md "Egress
    /// gateway"): needs a root agent; excludes allowedConnectPorts and allowUdp.
    bool egressGateway = false;
    /// With egressGateway: called (on the light event thread) with each listening socket a
    /// supervisor of the workspace made in its network namespace; the callee owns the fd.
    std::function<void(const QString& workspaceId, int listenerFd)> onGatewayListener;
    /// The host path of the science environment revision's prefix the workspace runs with
    /// (bound read-only at /opt/science-env in its mount namespace, the host interpreters
    /// masked; docs/environments.md "Selection"); "" = none. Needs a root agent (a mount
    /// namespace per workspace) and LightHostConfig::environmentRoot. The caller holds the
    /// revision (EnvironmentService::acquirePrefix) for the workspace's life.
    QString environmentPrefix;
};

/// A workspace as reported to callers (never includes its env).
struct LightWorkspaceInfo {
    QString id;
    uid_t uid = 0;
    QString home;
    Rlimits limits;
    QList<quint16> allowedConnectPorts;
    LightConfinement confinement;
    qint64 createdMs = 0;  ///< ms since epoch
    qint64 lastUsedMs = 0; ///< ms since epoch: creation or last exec
    int runningExecutions = 0;
    bool supervisorRunning = false;

    /// `{"id","uid","isolation":"light","confinement":{…},"limits":{…},"allowedConnectPorts":[…],
    ///   "runningExecutions":N}`
    QJsonObject toJson() const;
    /// `confinement.toJson()` with its `networkAccess` (what this workspace's sockets may do).
    QJsonObject workspaceConfinementJson() const;
};

struct LightCreateResult {
    QList<LightWorkspaceInfo> workspaces;
    int rejected = 0; ///< asked for but not created: capacity or uids exhausted
};

/// One command to run in a workspace.
struct LightExecRequest {
    QStringList argv;            ///< argv[0] is searched in the exec env's PATH when it has no '/'
    QMap<QString, QString> env;  ///< on top of the base and workspace env
    QString cwd;                 ///< relative to the home ("" = the home)
    int stdinFd = -1;            ///< borrowed; −1 = /dev/null
    int stdoutFd = -1;           ///< borrowed; −1 = /dev/null
    int stderrFd = -1;           ///< borrowed; −1 = /dev/null
    qint64 timeoutMs = 0;        ///< 0 = none; at the deadline the whole tree is SIGKILLed
    bool killTreeOnExit = false; ///< when the leader ends, kill what it left running
    /// RLIMIT_NPROC of this exec's tree (its request's maxProcesses), when below the workspace's
    /// maxProcs; 0 = the workspace's. Counted per uid (getrlimit(2)): the workspace's background
    /// processes, supervisor and shepherds count too.
    qint64 maxProcesses = 0;
    /// Narrower network policy for this exec (a subset of the workspace's ports), when set.
    std::optional<QList<quint16>> allowedConnectPorts;
};

} // namespace runbox::light
