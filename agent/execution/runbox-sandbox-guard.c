/* runbox-sandbox-guard: runs one sandbox launcher (bwrap) so that no process of that sandbox
 * outlives the guard's request to stop or the death of the agent that started it (docs/managed.md
 * "No sandbox outlives the agent"). Plain C; on x86-64 without
 * any C library (sandbox-guard-sys.h says why).
 *
 * Why: bwrap --die-with-parent sets PR_SET_PDEATHSIG in its outer process right after clone(2),
 * but its inner process (the PID namespace's init) sets its own only after the sandbox set-up.
 * If the outer bwrap dies inside that window (agent SIGKILLed, or the agent kills the group to
 * cancel an execution that just started), the inner one is orphaned with no parent-death signal
 * and the sandboxed command runs on (observed with bubblewrap 0.8.0). The guard is a child
 * subreaper (prctl(2) PR_SET_CHILD_SUBREAPER): such orphans are reparented to it, and it kills
 * them. The PID namespace dies with its init (pid_namespaces(7)), taking the command with it.
 *
 * Contract with the agent (agent/execution/strong/SandboxProcess.cpp, SandboxSpawn.cpp):
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
#include "sandbox-guard-sys.h"

/* Writes the NUL-terminated @p s to standard error. */
static void say(const char* s) {
    unsigned long n = 0;
    while (s[n])
        ++n;
    (void)guard_write(2, s, n);
}

/* Appends the decimal @p value to @p out (which has room) and returns the new end. */
static char* append_decimal(char* out, long value) {
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + value % 10);
        value /= 10;
    } while (value > 0);
    while (n > 0)
        *out++ = digits[--n];
    return out;
}

/* Reads a decimal number at *p, skipping leading spaces; advances *p. Returns -1 if none. */
static long parse_decimal(const char** p) {
    const char* s = *p;
    while (*s == ' ' || *s == '\n')
        ++s;
    if (*s < '0' || *s > '9')
        return -1;
    long value = 0;
    while (*s >= '0' && *s <= '9')
        value = value * 10 + (*s++ - '0');
    *p = s;
    return value;
}

/* Reads all of @p path (at most size-1 bytes) into @p buf, NUL-terminated. Returns the length,
 * or -1 when the file cannot be opened. */
static long read_file(const char* path, char* buf, unsigned long size) {
    const int fd = guard_open_read(path, 0);
    if (fd < 0)
        return -1;
    unsigned long used = 0;
    for (;;) {
        const long n = guard_read(fd, buf + used, size - 1 - used);
        if (n == -GUARD_EINTR)
            continue;
        if (n <= 0)
            break;
        used += (unsigned long)n;
        if (used == size - 1)
            break;
    }
    guard_close(fd);
    buf[used] = '\0';
    return (long)used;
}

/* Parent pid of @p pid from /proc/<pid>/stat (field 4, after the last ')'), or -1. */
static long parent_of(long pid) {
    char path[48] = "/proc/";
    char* end = append_decimal(path + 6, pid);
    const char tail[] = "/stat";
    for (unsigned i = 0; i < sizeof tail; ++i)
        end[i] = tail[i];
    char line[1024];
    if (read_file(path, line, sizeof line) <= 0)
        return -1;
    const char* close_paren = 0;
    for (const char* c = line; *c; ++c)
        if (*c == ')')
            close_paren = c;
    if (!close_paren || close_paren[1] != ' ' || !close_paren[2] || close_paren[3] != ' ')
        return -1;
    const char* p = close_paren + 4; /* past ") S " */
    return parse_decimal(&p);
}

/* Kills every current child of the guard. Children are read from
 * /proc/self/task/<pid>/children (the guard is single-threaded); where that file does not exist
 * (CONFIG_PROC_CHILDREN off), /proc/<pid>/stat of every process is scanned for our pid as ppid.
 * Returns how many were signalled. */
static int kill_children(void) {
    const int self = guard_getpid();
    char path[64] = "/proc/self/task/";
    char* end = append_decimal(path + 16, self);
    const char tail[] = "/children";
    for (unsigned i = 0; i < sizeof tail; ++i)
        end[i] = tail[i];
    static char buf[65536];
    int killed = 0;
    if (read_file(path, buf, sizeof buf) >= 0) {
        const char* p = buf;
        for (long pid; (pid = parse_decimal(&p)) >= 0;)
            if (pid > 0 && guard_kill((int)pid, GUARD_SIGKILL) == 0)
                ++killed;
        return killed;
    }
    const int proc = guard_open_read("/proc", 1);
    if (proc < 0)
        return 0;
    static char entries[32768];
    for (;;) {
        const long n = guard_getdents64(proc, entries, sizeof entries);
        if (n <= 0)
            break;
        for (long at = 0; at < n;) {
            const struct guard_dirent64* d = (const struct guard_dirent64*)(entries + at);
            at += d->reclen;
            const char* name = d->name;
            const long pid = parse_decimal(&name);
            if (pid > 0 && *name == '\0' && parent_of(pid) == self &&
                guard_kill((int)pid, GUARD_SIGKILL) == 0)
                ++killed;
        }
    }
    guard_close(proc);
    return killed;
}

static void close_all_descriptors(void) {
    if (guard_close_range(0, ~0U) == 0)
        return;
    for (int fd = 0; fd < 1024; ++fd) /* kernels before 5.9 */
        guard_close(fd);
}

/* Ends the guard with @p status (a wait(2) status) as its own. */
static void __attribute__((noreturn)) exit_like(int status) {
    const int low = status & 0x7f;
    if (low == 0) /* WIFEXITED */
        guard_exit((status >> 8) & 0xff);
    if (low != 0x7f) { /* WIFSIGNALED: WTERMSIG is the low 7 bits */
        const struct guard_rlimit64 no_core = {0, 0};
        guard_prlimit(GUARD_RLIMIT_CORE, &no_core, 0);
        guard_default_action(low);
        const guard_u64 only = GUARD_SIGBIT(low);
        guard_sigprocmask(GUARD_SIG_UNBLOCK, &only, 0);
        guard_kill(guard_getpid(), low);
        guard_exit(128 + low);
    }
    guard_exit(127);
}

/* The guard proper; @p envp is the environment PROGRAM gets, unchanged. */
static int guard_main(int argc, char** argv, char** envp) {
    if (argc < 2) {
        say("usage: runbox-sandbox-guard PROGRAM [ARG...]\n");
        return 127;
    }
    const guard_u64 handled = GUARD_SIGBIT(GUARD_SIGCHLD) | GUARD_SIGBIT(GUARD_SIGTERM) |
                              GUARD_SIGBIT(GUARD_SIGINT) | GUARD_SIGBIT(GUARD_SIGHUP) |
                              GUARD_SIGBIT(GUARD_SIGQUIT);
    guard_u64 previous = 0;
    guard_sigprocmask(GUARD_SIG_BLOCK, &handled, &previous);
    if (guard_prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        say("runbox-sandbox-guard: PR_SET_CHILD_SUBREAPER failed\n");
        return 127;
    }
    /* fork, not vfork: the guard is a few pages, and a child that shares no stack is simpler
     * to get right without a C library. */
    const long program = guard_fork();
    if (program < 0) {
        say("runbox-sandbox-guard: fork failed\n");
        return 127;
    }
    if (program == 0) {
        guard_sigprocmask(GUARD_SIG_SETMASK, &previous, 0);
        guard_execve(argv[1], argv + 1, envp);
        say("runbox-sandbox-guard: cannot run the sandbox launcher\n");
        guard_exit(127);
    }
    close_all_descriptors();

    int programStatus = 0; /* wait(2) status of PROGRAM */
    int programEnded = 0;
    int stopping = 0;
    const struct guard_timespec rescan = {0, 200 * 1000 * 1000};
    for (;;) {
        guard_u64 info[16]; /* siginfo_t: 128 bytes */
        const long sig = guard_sigtimedwait(&handled, info, &rescan);
        if (sig > 0 && sig != GUARD_SIGCHLD)
            stopping = 1;
        if (stopping)
            kill_children();
        for (;;) {
            int status = 0;
            const long reaped = guard_wait_any(&status);
            if (reaped == -GUARD_EINTR)
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

#if defined(RUNBOX_GUARD_NOLIBC)
void* memset(void* dst, int c, unsigned long n) {
    unsigned char* d = (unsigned char*)dst;
    while (n--)
        *d++ = (unsigned char)c;
    return dst;
}

void* memcpy(void* dst, const void* src, unsigned long n) {
    unsigned char* d = (unsigned char*)dst;
    const unsigned char* s = (const unsigned char*)src;
    while (n--)
        *d++ = *s++;
    return dst;
}

/* Entry from _start with the initial stack: argc, argv[argc], NULL, envp..., NULL (System V
 * x86-64 psABI §3.4.1). */
__attribute__((used, noreturn)) static void guard_start(long* stack) {
    const int argc = (int)stack[0];
    char** argv = (char**)(stack + 1);
    guard_exit(guard_main(argc, argv, argv + argc + 1));
}

__asm__(".text\n"
        ".global _start\n"
        "_start:\n"
        "  xor %rbp, %rbp\n"
        "  mov %rsp, %rdi\n"
        "  and $-16, %rsp\n"
        "  call guard_start\n"
        "  hlt\n");
#else
extern char** environ;
int main(int argc, char** argv) {
    return guard_main(argc, argv, environ);
}
#endif
