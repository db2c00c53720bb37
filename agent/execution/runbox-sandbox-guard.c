/* runbox-sandbox-guard: runs one sandbox launcher (bwrap) so that no process of that sandbox
 * outlives the guard's request to stop or the death of the agent that started it (issue #3:
 * "no sandbox process survives the agent"). Plain C, libc only.
 *
 * Why: bwrap --die-with-parent sets PR_SET_PDEATHSIG in its outer process right after clone(2),
 * but its inner process (the PID namespace's init) sets its own only after the sandbox set-up.
 * If the outer bwrap dies inside that window (agent SIGKILLed, or the agent kills the group to
 * cancel an execution that just started), the inner one is orphaned with no parent-death signal
 * and the sandboxed command runs on (observed with bubblewrap 0.8.0). The guard is a child
 * subreaper (prctl(2) PR_SET_CHILD_SUBREAPER): such orphans are reparented to it, and it kills
 * them. The PID namespace dies with its init (pid_namespaces(7)), taking the command with it.
 *
 * Contract with the agent (agent/execution/SandboxProcess.cpp):
 *   runbox-sandbox-guard PROGRAM [ARG...]
 * - The agent's vfork child set PR_SET_PDEATHSIG(SIGTERM) before exec'ing the guard (kept across
 *   execve(2) of a program that is not set-user-ID), so the agent's death reaches the guard.
 * - PROGRAM runs with the guard's descriptors, environment, process group and limits unchanged;
 *   the guard then closes every descriptor of its own (the sandbox alone holds its pipes).
 * - SIGTERM, SIGINT, SIGHUP or SIGQUIT (the agent stopping it, or the agent's death): every child
 *   of the guard is killed with SIGKILL, and again for orphans reparented meanwhile, until none
 *   is left.
 * - When PROGRAM ends by itself, any orphan left behind is killed the same way.
 * - The guard exits only once it has no child left, with PROGRAM's status: the same exit code,
 *   or the same signal re-raised (no core dump). So the agent's pidfd reports the sandbox's end
 *   only when nothing of it runs any more.
 * - Exit 127 when PROGRAM could not be run (or the guard could not become a subreaper: it then
 *   runs nothing, failing closed).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Kills every current child of the guard. Children are read from
 * /proc/self/task/<pid>/children (the guard is single-threaded); where that file does not exist
 * (CONFIG_PROC_CHILDREN off), /proc/<pid>/stat of every process is scanned for our pid as ppid.
 * Returns how many were signalled. */
static int kill_children(void) {
    const pid_t self = getpid();
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)self);
    int killed = 0;
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        static char buf[65536];
        size_t used = 0;
        for (;;) {
            const ssize_t n = read(fd, buf + used, sizeof buf - 1 - used);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            used += (size_t)n;
            if (used == sizeof buf - 1)
                break;
        }
        close(fd);
        buf[used] = '\0';
        for (char* p = buf; *p;) {
            char* end = NULL;
            const long pid = strtol(p, &end, 10);
            if (end == p)
                break;
            if (pid > 0 && kill((pid_t)pid, SIGKILL) == 0)
                ++killed;
            p = end;
        }
        return killed;
    }
    DIR* proc = opendir("/proc");
    if (!proc)
        return 0;
    struct dirent* entry;
    while ((entry = readdir(proc)) != NULL) {
        char* end = NULL;
        const long pid = strtol(entry->d_name, &end, 10);
        if (pid <= 0 || *end != '\0')
            continue;
        char statPath[64];
        snprintf(statPath, sizeof statPath, "/proc/%ld/stat", pid);
        FILE* f = fopen(statPath, "re");
        if (!f)
            continue;
        char line[1024];
        const char* got = fgets(line, sizeof line, f);
        fclose(f);
        const char* close_paren = got ? strrchr(line, ')') : NULL;
        int ppid = 0;
        char state = 0;
        if (close_paren && sscanf(close_paren + 1, " %c %d", &state, &ppid) == 2 && ppid == self &&
            kill((pid_t)pid, SIGKILL) == 0)
            ++killed;
    }
    closedir(proc);
    return killed;
}

static void close_all_descriptors(void) {
    if (close_range(0, ~0U, 0) == 0)
        return;
    const long max = sysconf(_SC_OPEN_MAX);
    for (long fd = 0; fd < (max > 0 ? max : 1024); ++fd)
        close((int)fd);
}

/* Ends the guard with @p status (a waitpid(2) status) as its own. */
static void exit_like(int status) {
    if (WIFEXITED(status))
        _exit(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        signal(sig, SIG_DFL);
        sigset_t only;
        sigemptyset(&only);
        sigaddset(&only, sig);
        sigprocmask(SIG_UNBLOCK, &only, NULL);
        raise(sig);
        _exit(128 + sig);
    }
    _exit(127);
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: runbox-sandbox-guard PROGRAM [ARG...]\n");
        return 127;
    }
    sigset_t handled;
    sigemptyset(&handled);
    sigaddset(&handled, SIGCHLD);
    sigaddset(&handled, SIGTERM);
    sigaddset(&handled, SIGINT);
    sigaddset(&handled, SIGHUP);
    sigaddset(&handled, SIGQUIT);
    sigset_t previous;
    sigprocmask(SIG_BLOCK, &handled, &previous);
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
        fprintf(stderr, "runbox-sandbox-guard: PR_SET_CHILD_SUBREAPER: %s\n", strerror(errno));
        return 127;
    }
    /* vfork: the child only restores the signal mask and execs (or reports and _exits). */
    const pid_t program = vfork();
    if (program < 0) {
        fprintf(stderr, "runbox-sandbox-guard: fork: %s\n", strerror(errno));
        return 127;
    }
    if (program == 0) {
        sigprocmask(SIG_SETMASK, &previous, NULL);
        execv(argv[1], argv + 1);
        static const char failed[] = "runbox-sandbox-guard: cannot run the sandbox launcher\n";
        (void)!write(2, failed, sizeof failed - 1);
        _exit(127);
    }
    close_all_descriptors();

    int programStatus = 0; /* waitpid(2) status of PROGRAM */
    int programEnded = 0;
    int stopping = 0;
    const struct timespec rescan = {0, 200 * 1000 * 1000};
    for (;;) {
        siginfo_t info;
        const int sig = sigtimedwait(&handled, &info, &rescan);
        if (sig > 0 && sig != SIGCHLD)
            stopping = 1;
        if (stopping)
            kill_children();
        for (;;) {
            int status = 0;
            const pid_t reaped = waitpid(-1, &status, WNOHANG);
            if (reaped < 0 && errno == EINTR)
                continue;
            if (reaped < 0) /* ECHILD: nothing of the sandbox is left (PROGRAM was reaped) */
                exit_like(programStatus);
            if (reaped == 0)
                break;
            if (reaped == program) {
                programStatus = status;
                programEnded = 1;
            }
        }
        if (programEnded && !stopping) {
            /* The launcher ended by itself: nothing it started may stay behind. */
            stopping = 1;
            kill_children();
        }
    }
}
