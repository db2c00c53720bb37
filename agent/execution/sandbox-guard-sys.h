/* The system calls runbox-sandbox-guard makes, and nothing else.
 *
 * Why no C library on x86-64: the guard is started once per execution, and glibc's start-up
 * (static or dynamic) identifies the CPU's caches with a few dozen CPUID instructions
 * (init_cacheinfo). Under a hypervisor every CPUID traps to it; on the Firecracker VM this was
 * written on one CPUID costs 15-30 us and a glibc process start about 0.9 ms of CPU (perf stat),
 * against 0.05 ms for the same program without libc: a fifth of a `bwrap ... true` launch. So on
 * x86-64 the guard is built with -nostdlib and calls the kernel directly (syscall(2) ABI:
 * number in rax, arguments in rdi, rsi, rdx, r10, r8, r9; rcx and r11 clobbered; -errno on
 * failure). Elsewhere (RUNBOX_GUARD_NOLIBC undefined) the same calls go through libc's syscall(),
 * with the same "-errno on failure" convention.
 */
#ifndef RUNBOX_SANDBOX_GUARD_SYS_H
#define RUNBOX_SANDBOX_GUARD_SYS_H

#include <asm/unistd.h>
#include <linux/fcntl.h>
#include <linux/prctl.h>

typedef unsigned long long guard_u64;

#if defined(RUNBOX_GUARD_NOLIBC)
#if !defined(__x86_64__)
#error "RUNBOX_GUARD_NOLIBC is implemented for x86-64 only"
#endif
static inline long guard_syscall(long n, long a, long b, long c, long d, long e) {
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
                     : "rcx", "r11", "memory");
    return ret;
}

/* The compiler may emit calls to these for struct copies and zeroing. */
void* memset(void* dst, int c, unsigned long n);
void* memcpy(void* dst, const void* src, unsigned long n);

/* Kernel ABI of rt_sigaction(2) on x86-64 (struct kernel_sigaction). */
struct guard_sigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)(void);
    guard_u64 mask;
};

/* Restores the default action of @p sig (needed to re-raise a signal that may be ignored). */
static inline void guard_default_action(int sig) {
    struct guard_sigaction action = {0, 0, 0, 0}; /* handler 0 = SIG_DFL */
    guard_syscall(__NR_rt_sigaction, sig, (long)&action, 0, sizeof(guard_u64), 0);
}
#else
#include <errno.h>
#include <signal.h>
#include <unistd.h>
static inline long guard_syscall(long n, long a, long b, long c, long d, long e) {
    const long ret = syscall(n, a, b, c, d, e);
    return ret == -1 ? -errno : ret;
}
static inline void guard_default_action(int sig) {
    signal(sig, SIG_DFL);
}
#endif

/* Signal numbers and wait(2) status layout: the same on every Linux architecture. */
enum {
    GUARD_SIGHUP = 1,
    GUARD_SIGINT = 2,
    GUARD_SIGQUIT = 3,
    GUARD_SIGKILL = 9,
    GUARD_SIGTERM = 15,
    GUARD_SIGCHLD = 17
};
enum { GUARD_SIG_BLOCK = 0, GUARD_SIG_UNBLOCK = 1, GUARD_SIG_SETMASK = 2 };
enum { GUARD_WNOHANG = 1, GUARD_RLIMIT_CORE = 4 };
#define GUARD_EINTR 4
#define GUARD_ECHILD 10
#define GUARD_SIGBIT(sig) (1ULL << ((sig)-1))

struct guard_timespec {
    long tv_sec;
    long tv_nsec;
};
struct guard_rlimit64 {
    guard_u64 cur;
    guard_u64 max;
};
/* getdents64(2) record. */
struct guard_dirent64 {
    guard_u64 ino;
    long long off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

static inline long guard_write(int fd, const char* s, unsigned long n) {
    return guard_syscall(__NR_write, fd, (long)s, (long)n, 0, 0);
}
static inline long guard_read(int fd, char* buf, unsigned long n) {
    return guard_syscall(__NR_read, fd, (long)buf, (long)n, 0, 0);
}
static inline int guard_open_read(const char* path, int directory) {
    return (int)guard_syscall(__NR_openat, AT_FDCWD, (long)path,
                              O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0), 0, 0);
}
static inline void guard_close(int fd) {
    guard_syscall(__NR_close, fd, 0, 0, 0, 0);
}
static inline int guard_getpid(void) {
    return (int)guard_syscall(__NR_getpid, 0, 0, 0, 0, 0);
}
static inline long guard_kill(int pid, int sig) {
    return guard_syscall(__NR_kill, pid, sig, 0, 0, 0);
}
static inline long guard_sigprocmask(int how, const guard_u64* set, guard_u64* old) {
    return guard_syscall(__NR_rt_sigprocmask, how, (long)set, (long)old, sizeof(guard_u64), 0);
}
/* rt_sigtimedwait(2) with a kernel-sized (8-byte) set; @p info receives a siginfo_t. */
static inline long guard_sigtimedwait(const guard_u64* set, void* info,
                                      const struct guard_timespec* timeout) {
    return guard_syscall(__NR_rt_sigtimedwait, (long)set, (long)info, (long)timeout,
                         sizeof(guard_u64), 0);
}
/* fork(2) as clone(2) with only the exit signal (the call every architecture has). */
static inline long guard_fork(void) {
    return guard_syscall(__NR_clone, GUARD_SIGCHLD, 0, 0, 0, 0);
}
static inline long guard_execve(const char* path, char* const* argv, char* const* envp) {
    return guard_syscall(__NR_execve, (long)path, (long)argv, (long)envp, 0, 0);
}
static inline long guard_wait_any(int* status) {
    return guard_syscall(__NR_wait4, -1, (long)status, GUARD_WNOHANG, 0, 0);
}
static inline long guard_prctl(int option, unsigned long arg) {
    return guard_syscall(__NR_prctl, option, (long)arg, 0, 0, 0);
}
static inline long guard_close_range(unsigned first, unsigned last) {
    return guard_syscall(__NR_close_range, first, last, 0, 0, 0);
}
static inline long guard_prlimit(int resource, const struct guard_rlimit64* limit,
                                 struct guard_rlimit64* old) {
    return guard_syscall(__NR_prlimit64, 0, resource, (long)limit, (long)old, 0);
}
static inline long guard_getdents64(int fd, char* buf, unsigned long n) {
    return guard_syscall(__NR_getdents64, fd, (long)buf, (long)n, 0, 0);
}
static inline void __attribute__((noreturn)) guard_exit(int code) {
    for (;;)
        guard_syscall(__NR_exit_group, code, 0, 0, 0, 0);
}

#endif
