#include "agent/light/helper/Shepherd.h"

#include "agent/light/helper/ProcessTree.h"
#include "agent/light/helper/SupervisorProtocol.h"

#include <cerrno>
#include <csignal>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace runbox::light {

namespace {

constexpr unsigned kCloseRangeCloexec = 1u << 2; // CLOSE_RANGE_CLOEXEC, linux/close_range.h

struct ChildContext {
    const ShepherdJob* job = nullptr;
    int failedErrno = 0;
    const char* failedStage = nullptr;
};

// Runs in the vfork-style child: syscalls only, no allocation, no locks.
int childMain(void* arg) {
    auto* context = static_cast<ChildContext*>(arg);
    const ShepherdJob& job = *context->job;
    const auto fail = [context](const char* stage) {
        context->failedErrno = errno;
        context->failedStage = stage;
        ::_exit(127);
    };
    ::setsid();
    for (int target = 0; target < 3; ++target) {
        if (::dup2(job.stdioFds[target], target) < 0)
            fail("dup2");
    }
    struct sigaction defaults {};
    defaults.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig) {
        if (sig != SIGKILL && sig != SIGSTOP)
            ::sigaction(sig, &defaults, nullptr);
    }
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (::chdir(job.cwd) != 0)
        fail("chdir");
    // The exec's own process limit (its request's maxProcesses): counted per uid, so the
    // workspace's other processes (background ones, the supervisor, shepherds) count too.
    if (job.maxProcs > 0 && job.maxProcs < job.limits.maxProcs) {
        const rlimit nproc{static_cast<rlim_t>(job.maxProcs), static_cast<rlim_t>(job.maxProcs)};
        if (::setrlimit(RLIMIT_NPROC, &nproc) != 0)
            fail("rlimits");
    }
    if (job.nestedRulesetFd >= 0 &&
        ::syscall(SYS_landlock_restrict_self, job.nestedRulesetFd, 0) != 0)
        fail("landlock");
    ::syscall(SYS_close_range, 3u, ~0u, kCloseRangeCloexec);
    int error = ENOENT;
    bool sawAccessDenied = false;
    for (const char* const* candidate = job.candidates; *candidate; ++candidate) {
        ::execve(*candidate, job.argv, job.envp);
        error = errno;
        if (error == EACCES)
            sawAccessDenied = true;
        else if (error != ENOENT && error != ENOTDIR)
            break;
    }
    errno = (sawAccessDenied && (error == ENOENT || error == ENOTDIR)) ? EACCES : error;
    fail("execve");
    return 127;
}

void sendExecFailed(const ShepherdJob& job, int error, const char* stage) {
    auto message = wire::make<wire::ExecFailed>(wire::Type::ExecFailed, job.execId);
    message.errorNumber = error;
    wire::copyString(message.stage, sizeof(message.stage), stage);
    wire::sendMessage(job.controlFd, &message, sizeof(message));
}

alignas(16) char g_childStack[64 * 1024];

} // namespace

void Shepherd::run(const ShepherdJob& job) {
    ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    if (!job.limits.applyCpuToSelf(nullptr)) {
        sendExecFailed(job, errno, "rlimits");
        ::_exit(0);
    }
    ChildContext context;
    context.job = &job;
    const pid_t leader = ::clone(childMain, g_childStack + sizeof(g_childStack),
                                 CLONE_VM | CLONE_VFORK | SIGCHLD, &context);
    if (leader < 0) {
        sendExecFailed(job, errno, "fork");
        ::_exit(0);
    }
    for (int fd : job.stdioFds)
        ::close(fd);
    if (context.failedStage) {
        ::waitpid(leader, nullptr, 0);
        sendExecFailed(job, context.failedErrno, context.failedStage);
        ::_exit(0);
    }
    auto started = wire::make<wire::Started>(wire::Type::Started, job.execId);
    started.pid = leader;
    wire::sendMessage(job.controlFd, &started, sizeof(started));

    // Reap everything that reparents here (so orphans never pile up as zombies) until the leader.
    int status = 0;
    for (;;) {
        int childStatus = 0;
        const pid_t pid = ::waitpid(-1, &childStatus, 0);
        if (pid == leader) {
            status = childStatus;
            break;
        }
        if (pid < 0 && errno != EINTR) {
            status = W_EXITCODE(0, SIGKILL); // cannot happen: the leader is our child
            break;
        }
    }
    if (job.flags & wire::kExecKillTreeOnExit)
        ProcessTree::killDescendants(::getpid(), 1000, true);
    auto exited = wire::make<wire::Exited>(wire::Type::Exited, job.execId);
    exited.waitStatus = status;
    wire::sendMessage(job.controlFd, &exited, sizeof(exited));
    ::_exit(0);
}

} // namespace runbox::light
