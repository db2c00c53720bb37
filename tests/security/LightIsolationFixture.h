#pragma once
// The set-up shared by the light isolation tests (test_light_host_isolation,
// test_light_workspace_isolation): two in-process LightWorkspaceHosts, one with a PID namespace
// + private /proc per workspace (the default when root) and one without ("flat"), where other
// workspaces' pids are visible so uid + Landlock alone must refuse; a stand-in for the agent's
// port and one for an allowed service.
#include "LightTestSupport.h"

#include <QObject>
#include <QTemporaryDir>

#include <arpa/inet.h>
#include <memory>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

namespace lighttest {

/// A TCP listener on 127.0.0.1 (the stand-in for the agent's port or an allowed service).
struct Listener {
    int fd = -1;
    quint16 port = 0;
    bool open() {
        fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof(address);
        if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
            ::listen(fd, 64) != 0 ||
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
            return false;
        port = ntohs(address.sin_port);
        return true;
    }
    ~Listener() {
        if (fd >= 0)
            ::close(fd);
    }
};

/// Base of the light isolation test classes: owns the hosts and the helpers their checks use.
/// The test class calls startHosts() from initTestCase() and
/// removeAllWorkspaces() from cleanup().
class LightIsolationFixture : public QObject {
protected:
    /// Starts the pid host on uids [@p firstUid, +100) and the flat host on
    /// [@p firstUid + 200, +100); each test executable uses its own range (they run side by
    /// side). Returns why the test must be skipped (not root: the caller QSKIPs with it, since
    /// QSKIP must be in the test function); empty otherwise, with @p error set on a failure.
    QString startHosts(uid_t firstUid, QString* error) {
        if (::geteuid() != 0)
            return QStringLiteral("light workspaces need root (setuid, Landlock, PID namespaces)");
        if (!m_dir.isValid() || ::chmod(QFile::encodeName(m_dir.path()).constData(), 0711) != 0) {
            *error = QStringLiteral("cannot prepare the workspace root");
            return {};
        }
        if (!m_agentPort.open() || !m_otherPort.open()) {
            *error = QStringLiteral("cannot open the loopback listeners");
            return {};
        }
        m_pid = makeHost(QStringLiteral("pid"), firstUid, true);
        m_flat = makeHost(QStringLiteral("flat"), firstUid + 200, false);
        for (LightWorkspaceHost* host : {m_pid.get(), m_flat.get()}) {
            if (!host->start()) {
                *error = host->availability().reason;
                return {};
            }
        }
        return {};
    }

    /// Removes every workspace of both hosts; false when one could not be removed.
    bool removeAllWorkspaces() {
        bool ok = true;
        for (LightWorkspaceHost* host : {m_pid.get(), m_flat.get()})
            if (host)
                ok = host->removeAll().isEmpty() && ok;
        return ok;
    }

    std::unique_ptr<LightWorkspaceHost> makeHost(const QString& name, uid_t firstUid,
                                                 bool pidNamespace, std::uint32_t uidCount = 100,
                                                 bool prestart = true) {
        LightHostConfig config;
        config.workspaceRoot = m_dir.path() + QLatin1Char('/') + name;
        config.supervisorPath = QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-light-supervisor");
        config.uids.first = firstUid;
        config.uids.count = uidCount;
        config.pidNamespace = pidNamespace;
        config.controlPlanePorts = {m_agentPort.port};
        config.sweepPasses = 20;
        config.prestartSupervisors = prestart;
        return std::make_unique<LightWorkspaceHost>(config);
    }

    /// Creates one workspace in @p host; its id (empty on failure, with a warning).
    QString make(LightWorkspaceHost& host, const LightWorkspaceOptions& options = {}) {
        LightCreateResult result;
        const auto error = host.create(options, 1, &result);
        if (error || result.workspaces.size() != 1) {
            qWarning("create failed: %s (rejected %d)", error ? qPrintable(error->message) : "",
                     result.rejected);
            return {};
        }
        return result.workspaces.first().id;
    }

    uid_t uidOf(LightWorkspaceHost& host, const QString& id) { return host.info(id)->uid; }
    QString homeOf(LightWorkspaceHost& host, const QString& id) { return host.info(id)->home; }

    /// Starts `sleep 300` in the background of @p id with env SECRET=@p secret; its host pid.
    pid_t startBackgroundSleep(LightWorkspaceHost& host, const QString& id, const QString& secret) {
        const RunResult started = sh(host, id, QStringLiteral("sleep 300 >/dev/null 2>&1 &"), 0,
                                     {{QStringLiteral("SECRET"), secret}});
        if (!started.finished)
            return -1;
        QList<pid_t> pids;
        waitUntil([&] {
            pids = processesOf(uidOf(host, id), "sleep 300");
            return !pids.isEmpty();
        });
        return pids.isEmpty() ? -1 : pids.first();
    }

    QTemporaryDir m_dir;
    Listener m_agentPort; // never reachable from a workspace
    Listener m_otherPort; // reachable only where a workspace's policy allows it
    std::unique_ptr<LightWorkspaceHost> m_pid;  // PID namespace + private /proc per workspace
    std::unique_ptr<LightWorkspaceHost> m_flat; // no PID namespace: pids visible across
};

} // namespace lighttest
