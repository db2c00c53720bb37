/*
 * runbox-egress-bridge: the in-sandbox half of Runbox egress (agent/egress/README.md,
 * docs/contracts.md "Egress gateway").
 *
 *   runbox-egress-bridge --socket PATH [--listen 127.0.0.1:18118] [--status-fd N] [--hand-over]
 *                        -- CMD ARGS...
 *
 * Runs inside the sandbox's own network namespace, which has nothing but loopback. It
 *  1. brings "lo" up if it is down (SIOCSIFFLAGS IFF_UP; bubblewrap's --unshare-net already does
 *     this, so inside bwrap it is a no-op and needs no capability),
 *  2. listens on 127.0.0.1:18118 (before starting the command, so the command never races it),
 *  3. fork/execs CMD as its child (stdio inherited, listener close-on-exec),
 *  4. pipes every accepted TCP connection to a new connection to the gateway's unix socket,
 *     byte for byte, propagating half-close (shutdown(SHUT_WR) once a side hit EOF and its
 *     buffer drained); poll(2), one thread; the bytes go socket -> pipe -> socket with
 *     splice(2), so they are never copied through user space (recv/send as the fallback);
 *     with --hand-over (the gateway in the agent understands it) the accepted socket itself is
 *     sent to the gateway instead (SCM_RIGHTS after one NUL byte) and this process is out of
 *     the data path; piping stays the fallback if that send fails,
 *  5. forwards SIGTERM, SIGINT, SIGHUP and SIGQUIT to the child,
 *  6. exits with the child's status (128+N when it died of signal N) as soon as it has exited.
 *
 * It never writes to stdout. Its own failures go to stderr prefixed "runbox-egress-bridge:"
 * and exit 125 (before the command ran); exec failures exit 127 (not found) or 126 (other), as
 * a shell would. With --status-fd N it writes exactly one line to fd N and closes it: "ready"
 * once the listener is up and the command was executed, or "error: <text>" otherwise, so the
 * launcher can tell a failed setup from the command's own exit status.
 *
 * Plain C and libc only (no Qt), so it can be linked statically and bound read-only into any
 * sandbox.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define BRIDGE_NAME "runbox-egress-bridge"
#define EXIT_SETUP_FAILED 125
#define BUFFER_BYTES (256 * 1024)
#define PIPE_BYTES (1024 * 1024)
#define UNIX_SEND_BUFFER_BYTES (4 * 1024 * 1024)
#define MAX_STEPS_PER_ROUND 8 /* fairness between connections */
#define MAX_CONNECTIONS 1024
#define LISTEN_BACKLOG 128

/* One direction of a connection: bytes read from `from` on their way to `to`.
 * Normally through a pipe with splice(2) (socket -> pipe -> socket, no copy through user space;
 * pipe(7) for the pipe's capacity); when no pipe can be had (descriptor limit) or splice is
 * refused (EINVAL: a kernel or socket type without splice support), through `buf` with
 * recv/send. */
struct direction {
    int pipe_r, pipe_w; /* -1 when copying through buf */
    size_t in_pipe;     /* bytes spliced into the pipe, not yet out of it */
    size_t pipe_cap;
    char* buf;   /* copy mode only (BUFFER_BYTES) */
    size_t len;  /* bytes in buf */
    size_t off;  /* bytes of buf already written */
    int stalled; /* splice into the pipe said EAGAIN while it held bytes: the pipe may
                    be full (its capacity counts pages, not bytes), so wait for `to` */
    int eof;     /* `from` returned 0 */
    int shut;    /* shutdown(to, SHUT_WR) done */
};

struct connection {
    int tcp;
    int uds;
    struct direction up;   /* tcp -> uds */
    struct direction down; /* uds -> tcp */
};

static int g_signal_pipe[2] = {-1, -1};
static int g_hand_over = 0; /* --hand-over */
static int g_status_fd = -1;

static void report(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs(BRIDGE_NAME ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void status_line(const char* line) {
    if (g_status_fd < 0)
        return;
    size_t len = strlen(line);
    while (len > 0) {
        ssize_t n = write(g_status_fd, line, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        line += n;
        len -= (size_t)n;
    }
    close(g_status_fd);
    g_status_fd = -1;
}

static void setup_failed(const char* fmt, ...) {
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    report("%s", text);
    char line[540];
    snprintf(line, sizeof line, "error: %s\n", text);
    status_line(line);
    exit(EXIT_SETUP_FAILED);
}

static void usage(void) {
    fprintf(stderr, "usage: " BRIDGE_NAME " --socket PATH [--listen 127.0.0.1:18118] "
                    "[--status-fd N] [--hand-over] -- COMMAND [ARGS...]\n");
    exit(EXIT_SETUP_FAILED);
}

static void on_signal(int signo) {
    const int saved = errno;
    const unsigned char byte = (unsigned char)signo;
    (void)!write(g_signal_pipe[1], &byte, 1);
    errno = saved;
}

static int set_nonblocking(int fd) {
    const int flags = fcntl(fd, F_GETFL);
    return flags < 0 ? -1 : fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

/* Parses "A.B.C.D:PORT" (IPv4 only: the sandbox's loopback). */
static int parse_listen(const char* text, struct sockaddr_in* out) {
    char host[64];
    const char* colon = strrchr(text, ':');
    if (!colon || (size_t)(colon - text) >= sizeof host)
        return -1;
    memcpy(host, text, (size_t)(colon - text));
    host[colon - text] = '\0';
    char* end = NULL;
    errno = 0;
    const long port = strtol(colon + 1, &end, 10);
    if (errno != 0 || *end != '\0' || end == colon + 1 || port < 1 || port > 65535)
        return -1;
    memset(out, 0, sizeof *out);
    out->sin_family = AF_INET;
    out->sin_port = htons((unsigned short)port);
    return inet_pton(AF_INET, host, &out->sin_addr) == 1 ? 0 : -1;
}

/* In a fresh network namespace "lo" exists but is down (netdevice(7): SIOCGIFFLAGS,
 * SIOCSIFFLAGS). Setting IFF_UP needs CAP_NET_ADMIN there, so skip when it is up already. */
static void ensure_loopback_up(int fd) {
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
    if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
        setup_failed("cannot read the flags of lo: %s", strerror(errno));
    if (ifr.ifr_flags & IFF_UP)
        return;
    ifr.ifr_flags |= IFF_UP;
    if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
        setup_failed("loopback is down and cannot be brought up: %s (needs CAP_NET_ADMIN in "
                     "this network namespace)",
                     strerror(errno));
}

static int open_listener(const struct sockaddr_in* address) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        setup_failed("socket: %s", strerror(errno));
    ensure_loopback_up(fd);
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    char text[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &address->sin_addr, text, sizeof text);
    if (bind(fd, (const struct sockaddr*)address, sizeof *address) < 0)
        setup_failed("cannot listen on %s:%u: %s", text, ntohs(address->sin_port), strerror(errno));
    if (listen(fd, LISTEN_BACKLOG) < 0 || set_nonblocking(fd) < 0)
        setup_failed("listen: %s", strerror(errno));
    return fd;
}

static void install_signal_handlers(void) {
    if (pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
        setup_failed("pipe: %s", strerror(errno));
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    const int forwarded[] = {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; ++i)
        sigaction(forwarded[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* Starts the command. Exec errors travel back on a close-on-exec pipe, so "ready" on the status
 * fd means the command really runs. */
static pid_t start_child(char** argv, const sigset_t* original_mask) {
    int exec_pipe[2];
    if (pipe2(exec_pipe, O_CLOEXEC) < 0)
        setup_failed("pipe: %s", strerror(errno));
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0)
        setup_failed("fork: %s", strerror(errno));
    if (pid == 0) {
        close(exec_pipe[0]);
        const int defaults[] = {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE};
        for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; ++i)
            signal(defaults[i], SIG_DFL);
        sigprocmask(SIG_SETMASK, original_mask, NULL);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(EXIT_SETUP_FAILED);
        if (g_status_fd >= 0)
            close(g_status_fd);
        execvp(argv[0], argv);
        const int error = errno;
        report("cannot execute %s: %s", argv[0], strerror(error));
        (void)!write(exec_pipe[1], &error, sizeof error);
        _exit(error == ENOENT ? 127 : 126);
    }
    close(exec_pipe[1]);
    int error = 0;
    ssize_t n;
    do {
        n = read(exec_pipe[0], &error, sizeof error);
    } while (n < 0 && errno == EINTR);
    close(exec_pipe[0]);
    if (n == (ssize_t)sizeof error) {
        char line[300];
        snprintf(line, sizeof line, "error: cannot execute %s: %s\n", argv[0], strerror(error));
        status_line(line);
    } else {
        status_line("ready\n");
    }
    return pid;
}

static void send_gateway_unreachable(int tcp, const char* why) {
    char body[300];
    const int body_len = snprintf(body, sizeof body, "egress gateway unreachable: %s\n", why);
    char response[700];
    const int len = snprintf(response, sizeof response,
                             "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\n"
                             "Content-Length: %d\r\nConnection: close\r\n"
                             "X-Runbox-Egress-Reason: gateway_unreachable\r\n\r\n%s",
                             body_len, body);
    if (len > 0)
        (void)!send(tcp, response, (size_t)len, MSG_NOSIGNAL);
}

/* --hand-over: gives the accepted TCP connection itself to the gateway, as SCM_RIGHTS with one
 * NUL byte on a fresh connection to the gateway's socket (unix(7)), so that the gateway reads
 * and writes the client's socket directly and no byte passes through this process. Returns 0
 * once the gateway has it (then @p uds is closed; the caller closes its copy of @p tcp); -1 if
 * it could not be sent, and the caller pipes the connection instead. */
static int hand_over(int tcp, int uds) {
    char marker = '\0';
    struct iovec iov = {.iov_base = &marker, .iov_len = 1};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.buf;
    msg.msg_controllen = sizeof control.buf;
    struct cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cmsg), &tcp, sizeof(int));
    ssize_t n;
    do {
        n = sendmsg(uds, &msg, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    if (n != 1)
        return -1;
    close(uds);
    return 0;
}

/* Gives @p d a pipe for splice(2), as large as PIPE_BYTES if the kernel lets us (F_SETPIPE_SZ,
 * fcntl(2); bounded by /proc/sys/fs/pipe-max-size for unprivileged processes). Without a pipe
 * the direction copies through a buffer instead. Returns -1 only if neither is possible. */
static int direction_init(struct direction* d) {
    int fds[2];
    d->pipe_r = d->pipe_w = -1;
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0) {
        d->pipe_r = fds[0];
        d->pipe_w = fds[1];
        const int cap = fcntl(d->pipe_w, F_SETPIPE_SZ, PIPE_BYTES);
        d->pipe_cap = cap > 0 ? (size_t)cap : (size_t)fcntl(d->pipe_w, F_GETPIPE_SZ);
        if (d->pipe_cap == 0 || d->pipe_cap > (size_t)PIPE_BYTES * 4)
            d->pipe_cap = 65536; /* the kernel's default (pipe(7)) */
        return 0;
    }
    d->buf = malloc(BUFFER_BYTES);
    return d->buf ? 0 : -1;
}

static void direction_free(struct direction* d) {
    if (d->pipe_r >= 0)
        close(d->pipe_r);
    if (d->pipe_w >= 0)
        close(d->pipe_w);
    free(d->buf);
}

/* Opens a new gateway connection for an accepted TCP connection; NULL if the gateway is gone. */
static struct connection* open_connection(int tcp, const char* socket_path) {
    struct sockaddr_un address;
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    memcpy(address.sun_path, socket_path, strlen(socket_path) + 1);
    const int uds = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (uds < 0 || connect(uds, (struct sockaddr*)&address, sizeof address) < 0) {
        const char* why = strerror(errno);
        report("gateway unreachable: %s: %s", socket_path, why);
        send_gateway_unreachable(tcp, why);
        if (uds >= 0)
            close(uds);
        return NULL;
    }
    if (g_hand_over && hand_over(tcp, uds) == 0)
        return NULL; /* the gateway has the connection now; the caller closes our copy */
    /* A unix stream socket holds at most the sender's SO_SNDBUF in flight (socket(7); the
     * kernel caps it at net.core.wmem_max): larger means fewer hand-offs per MiB uploaded. */
    const int send_buffer = UNIX_SEND_BUFFER_BYTES;
    setsockopt(uds, SOL_SOCKET, SO_SNDBUF, &send_buffer, sizeof send_buffer);
    struct connection* c = calloc(1, sizeof *c);
    if (!c || direction_init(&c->up) < 0 || direction_init(&c->down) < 0) {
        if (c) {
            direction_free(&c->up);
            direction_free(&c->down);
            free(c);
        }
        report("out of memory for a connection");
        close(uds);
        return NULL;
    }
    c->tcp = tcp;
    c->uds = uds;
    return c;
}

/* splice(2) could not be used for this pair: continue by copying (nothing is lost, the pipe
 * is only dropped once it is empty). */
static int fall_back_to_copy(struct direction* d) {
    if (d->in_pipe > 0)
        return -1;
    close(d->pipe_r);
    close(d->pipe_w);
    d->pipe_r = d->pipe_w = -1;
    d->buf = malloc(BUFFER_BYTES);
    return d->buf ? 0 : -1;
}

/* Moves bytes for one direction as far as the sockets allow without blocking (splice or
 * recv/send). Returns -1 on a fatal error. */
static int pump(struct direction* d, int from, int to, int readable, int writable) {
    for (int step = 0; step < MAX_STEPS_PER_ROUND; ++step) {
        int progress = 0;
        if (d->pipe_r >= 0) {
            if (readable && !d->eof && !d->stalled && d->in_pipe < d->pipe_cap) {
                const ssize_t n = splice(from, NULL, d->pipe_w, NULL, d->pipe_cap - d->in_pipe,
                                         SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
                if (n > 0) {
                    d->in_pipe += (size_t)n;
                    writable = progress = 1;
                } else if (n == 0) {
                    d->eof = 1;
                } else if (errno == EINVAL && d->in_pipe == 0) {
                    if (fall_back_to_copy(d) < 0)
                        return -1;
                    continue;
                } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
                    readable = 0;
                    d->stalled = d->in_pipe > 0;
                } else if (errno != EINTR) {
                    return -1;
                }
            }
            if (writable && d->in_pipe > 0) {
                const ssize_t n = splice(d->pipe_r, NULL, to, NULL, d->in_pipe,
                                         SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
                if (n > 0) {
                    d->in_pipe -= (size_t)n;
                    d->stalled = 0;
                    readable = progress = 1;
                } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                    writable = 0;
                } else if (n < 0 && errno != EINTR) {
                    return -1;
                }
            }
        } else {
            if (readable && d->len == 0 && !d->eof) {
                const ssize_t n = recv(from, d->buf, BUFFER_BYTES, 0);
                if (n > 0) {
                    d->len = (size_t)n;
                    d->off = 0;
                    writable = progress = 1; /* try at once: usually the peer takes it */
                } else if (n == 0) {
                    d->eof = 1;
                } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
                    readable = 0;
                } else if (errno != EINTR) {
                    return -1;
                }
            }
            if (writable && d->len > d->off) {
                const ssize_t n = send(to, d->buf + d->off, d->len - d->off, MSG_NOSIGNAL);
                if (n > 0) {
                    d->off += (size_t)n;
                    if (d->off == d->len) {
                        d->len = d->off = 0;
                        readable = progress = 1;
                    }
                } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                    writable = 0;
                } else if (n < 0 && errno != EINTR) {
                    return -1;
                }
            }
        }
        if (!progress)
            break;
    }
    if (d->eof && d->in_pipe == 0 && d->len == 0 && !d->shut) {
        shutdown(to, SHUT_WR); /* half-close travels on */
        d->shut = 1;
    }
    return 0;
}

static int has_room(const struct direction* d) {
    return d->pipe_r >= 0 ? d->in_pipe < d->pipe_cap && !d->stalled : d->len == 0;
}

static int has_bytes(const struct direction* d) {
    return d->pipe_r >= 0 ? d->in_pipe > 0 : d->len > d->off;
}

static short want(const struct direction* d, int as_source) {
    if (as_source)
        return (has_room(d) && !d->eof) ? POLLIN : 0;
    return has_bytes(d) ? POLLOUT : 0;
}

static void close_connection(struct connection** slot) {
    close((*slot)->tcp);
    close((*slot)->uds);
    direction_free(&(*slot)->up);
    direction_free(&(*slot)->down);
    free(*slot);
    *slot = NULL;
}

static int exit_status_of(int status) {
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return EXIT_SETUP_FAILED;
}

/* Returns the child's exit status once it has exited. */
static int run(int listener, pid_t child, const char* socket_path) {
    static struct connection* connections[MAX_CONNECTIONS];
    static struct pollfd fds[2 + 2 * MAX_CONNECTIONS];
    size_t count = 0;
    for (;;) {
        fds[0] = (struct pollfd){.fd = g_signal_pipe[0], .events = POLLIN};
        fds[1] = (struct pollfd){.fd = count < MAX_CONNECTIONS ? listener : -1, .events = POLLIN};
        for (size_t i = 0; i < count; ++i) {
            const struct connection* c = connections[i];
            const short tcp_events = want(&c->up, 1) | want(&c->down, 0);
            const short uds_events = want(&c->down, 1) | want(&c->up, 0);
            fds[2 + 2 * i] = (struct pollfd){.fd = tcp_events ? c->tcp : -1, .events = tcp_events};
            fds[3 + 2 * i] = (struct pollfd){.fd = uds_events ? c->uds : -1, .events = uds_events};
        }
        if (poll(fds, 2 + 2 * count, -1) < 0) {
            if (errno == EINTR)
                continue;
            report("poll: %s", strerror(errno));
            kill(child, SIGKILL);
            int status = 0;
            while (waitpid(child, &status, 0) < 0 && errno == EINTR)
                ;
            return exit_status_of(status);
        }
        if (fds[0].revents & POLLIN) {
            unsigned char signals[64];
            const ssize_t n = read(g_signal_pipe[0], signals, sizeof signals);
            for (ssize_t i = 0; i < n; ++i) {
                if (signals[i] != SIGCHLD)
                    kill(child, signals[i]);
            }
            int status;
            pid_t pid;
            while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
                if (pid == child)
                    return exit_status_of(status); /* orphans reaped above if we are pid 1 */
            }
        }
        for (size_t i = 0; i < count; ++i) {
            struct connection* c = connections[i];
            const short tcp_revents = fds[2 + 2 * i].fd >= 0 ? fds[2 + 2 * i].revents : 0;
            const short uds_revents = fds[3 + 2 * i].fd >= 0 ? fds[3 + 2 * i].revents : 0;
            const int failed = (tcp_revents | uds_revents) & POLLERR;
            const int tcp_in = tcp_revents & (POLLIN | POLLHUP);
            const int uds_in = uds_revents & (POLLIN | POLLHUP);
            if (failed || pump(&c->up, c->tcp, c->uds, tcp_in, uds_revents & POLLOUT) < 0 ||
                pump(&c->down, c->uds, c->tcp, uds_in, tcp_revents & POLLOUT) < 0 ||
                (c->up.shut && c->down.shut)) {
                close_connection(&connections[i]);
            }
        }
        size_t kept = 0; /* compact; the pollfd array is rebuilt every round */
        for (size_t i = 0; i < count; ++i) {
            if (connections[i])
                connections[kept++] = connections[i];
        }
        count = kept;
        if (fds[1].fd >= 0 && (fds[1].revents & POLLIN)) {
            while (count < MAX_CONNECTIONS) {
                const int tcp = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
                if (tcp < 0)
                    break;
                const int one = 1;
                setsockopt(tcp, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                struct connection* c = open_connection(tcp, socket_path);
                if (c)
                    connections[count++] = c;
                else
                    close(tcp);
            }
        }
    }
}

int main(int argc, char** argv) {
    const char* socket_path = NULL;
    const char* listen_text = "127.0.0.1:18118";
    int i = 1;
    for (; i < argc; ++i) {
        if (strcmp(argv[i], "--") == 0) {
            ++i;
            break;
        }
        if (i + 1 >= argc)
            usage();
        if (strcmp(argv[i], "--socket") == 0) {
            socket_path = argv[++i];
        } else if (strcmp(argv[i], "--hand-over") == 0) {
            g_hand_over = 1; /* a flag: no value to skip */
        } else if (strcmp(argv[i], "--listen") == 0) {
            listen_text = argv[++i];
        } else if (strcmp(argv[i], "--status-fd") == 0) {
            char* end = NULL;
            const long fd = strtol(argv[++i], &end, 10);
            if (*end != '\0' || fd < 0 || fd > 1 << 20)
                usage();
            g_status_fd = (int)fd;
            fcntl(g_status_fd, F_SETFD, FD_CLOEXEC);
        } else {
            usage();
        }
    }
    if (!socket_path || i >= argc)
        usage();
    if (strlen(socket_path) >= sizeof(((struct sockaddr_un*)0)->sun_path))
        setup_failed("socket path too long: %s", socket_path);
    struct sockaddr_in listen_address;
    if (parse_listen(listen_text, &listen_address) < 0)
        setup_failed("--listen wants IPV4:PORT, not %s", listen_text);

    sigset_t blocked, original;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGCHLD);
    sigaddset(&blocked, SIGTERM);
    sigaddset(&blocked, SIGINT);
    sigaddset(&blocked, SIGHUP);
    sigaddset(&blocked, SIGQUIT);
    sigprocmask(SIG_BLOCK, &blocked, &original);
    install_signal_handlers();
    const int listener = open_listener(&listen_address);
    const pid_t child = start_child(argv + i, &original);
    sigprocmask(SIG_SETMASK, &original, NULL); /* pending signals now reach the handler */
    return run(listener, child, socket_path);
}
