#pragma once

#include "agent/sandbox/SandboxLaunch.h"

#include <QByteArray>
#include <QObject>

#include <sys/types.h>

class QSocketNotifier;

namespace runbox::execution {
class ChildPipes;
}

namespace runbox::execution {

/// Raw exit of the bwrap process, plus what its --json-status-fd said.
struct ProcessExit {
    bool exited = false; ///< true: exit code valid; false: killed by signal
    int exitCode = -1;   ///< bwrap's exit code (the command's, or 128+N for a signal inside)
    int signal = 0;      ///< signal that killed bwrap itself
    bool commandStarted = false; ///< bwrap reported the command's own exit (set-up completed)
    /// With SandboxLaunch::setupStatusFd: the line the wrapping helper wrote ("ready",
    /// "error: …"), without the newline; empty when it wrote none.
    QByteArray setupStatus;
    bool setupStatusExpected = false; ///< the launch had a setupStatusFd
    /// CPU of the launch and of the descendants it waited for (wait4(2) rusage), ms.
    qint64 cpuUserMs = 0, cpuSystemMs = 0;
};

/// One bwrap process: started in its own process group with pipes for stdin/stdout/stderr
/// (ChildPipes), the
/// launch's extra descriptors (seccomp program on fd 3) and a status pipe for --json-status-fd.
/// Reading can be paused for backpressure. Exit is observed with a pidfd (pidfd_open(2)).
/// kill() signals the whole process group; with --unshare-pid the namespace's init dies with
/// bwrap and the kernel kills every process in it (pid_namespaces(7)).
///
/// bwrap exits as soon as the command does, while its namespace init may still be reaping
/// orphans (setsid, nohup, double fork); the init then dies of --die-with-parent and takes the
/// namespace with it, asynchronously. `finished` therefore also waits (bounded) until that init
/// has exited: once it has, the kernel has already reaped every process of the namespace, so no
/// descendant outlives the result (docs/contracts.md "Strong sandbox").
class SandboxProcess final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SandboxProcess)
public:
    explicit SandboxProcess(QObject* parent = nullptr);
    ~SandboxProcess() override;

    /// Starts @p launch with @p stdinData written to its stdin (then closed) and RLIMIT_NPROC
    /// @p maxProcesses (0 = inherit). Returns false with @p error set when it could not start.
    /// With @p guardPath (runbox-sandbox-guard, see its header comment) the launch runs under
    /// the guard, which gets PR_SET_PDEATHSIG(SIGTERM) so that it kills the whole sandbox when
    /// the agent dies; without it, bwrap gets PR_SET_PDEATHSIG(SIGKILL) directly. Either way the
    /// signal is set in the child before exec and the child gives up if the agent is already
    /// gone (prctl(2)), so no launch outlives an agent that dies while it starts.
    bool start(const sandbox::SandboxLaunch& launch, const QByteArray& stdinData,
               quint64 maxProcesses, QString* error, const QString& guardPath = QString());
    pid_t pid() const { return m_pid; }
    /// Host pid of bwrap's sandbox child (from --json-status-fd), 0 until known.
    pid_t sandboxChildPid() const { return m_childPid; }
    /// True once the sandbox's command has been forked (set-up finished); with a setupStatusFd
    /// only once the helper said `ready`.
    bool commandForked() const;

    /// Ends the sandbox. SIGKILL to the PID namespace init once bwrap has named it (through its
    /// pidfd), which ends the namespace's every process at once; then, guarded: SIGTERM to the
    /// guard, which kills every process of the sandbox (orphans included) and exits once none is
    /// left; SIGKILL to the whole group if it has not exited after kGuardGraceMs. Unguarded:
    /// SIGKILL to the process group (bwrap, the namespace init and anything left in the group).
    /// First reads the CPU the sandbox's processes used (ProcessTable::cpuOfPidNamespace), which
    /// the exit's rusage would miss.
    void killGroup();
    static constexpr int kGuardGraceMs = 5000;
    void setReadingPaused(bool paused);

Q_SIGNALS:
    /// bwrap said the host pid of its sandbox child (the PID namespace's init).
    void sandboxChildKnown(pid_t pid);
    void stdoutData(const QByteArray& data);
    void stderrData(const QByteArray& data);
    /// bwrap exited and both output pipes reached EOF (or the drain grace period ran out).
    void finished(const runbox::execution::ProcessExit& exit);

private:
    void readStatus();
    void readSetupStatus();
    void onPidfdReadable();
    void watchNamespaceInit();
    void stopWatchingNamespaceInit();
    void sampleCpuBeforeKill();
    void maybeFinish();

    pid_t m_pid = 0;
    bool m_guarded = false;
    pid_t m_childPid = 0;
    int m_pidfd = -1;
    int m_statusFd = -1;
    int m_setupStatusFd = -1; ///< read end of the setup status pipe
    QByteArray m_status;
    QSocketNotifier* m_statusNotifier = nullptr;
    QSocketNotifier* m_setupStatusNotifier = nullptr;
    QSocketNotifier* m_pidNotifier = nullptr;
    int m_nsInitPidfd = -1; ///< pidfd of the namespace init (bwrap's child), -1 once gone
    /// CPU of the sandbox's processes read by killGroup() just before it killed them.
    struct {
        qint64 userMs = 0;
        qint64 systemMs = 0;
    } m_cpuBeforeKill;
    QSocketNotifier* m_nsInitNotifier = nullptr;
    bool m_reaped = false;
    bool m_finishedEmitted = false;
    ProcessExit m_exit;
    ChildPipes* m_pipes; ///< stdin, stdout, stderr (owned, child QObject)
};

} // namespace runbox::execution
