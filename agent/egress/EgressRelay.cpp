#include "agent/egress/EgressRelay.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

namespace runbox::egress {

namespace {
constexpr int kPipeBytes = 1024 * 1024;      // F_SETPIPE_SZ wish; fcntl(2), pipe(7)
constexpr qsizetype kCopyBytes = 256 * 1024; // recv/send fallback buffer
constexpr int kMaxStepsPerRound = 8;         // fairness between tunnels

constexpr int kUnixSendBufferBytes = 4 * 1024 * 1024; // wish; capped by net.core.wmem_max

QString errorText(int error) {
    return QString::fromLocal8Bit(std::strerror(error));
}

/// A unix stream socket holds at most its sender's SO_SNDBUF in flight (socket(7); default
/// net.core.wmem_default, 208 KiB): a larger one means fewer hand-offs to the bridge per MiB.
/// TCP sockets are left alone (an explicit SO_SNDBUF would switch off their auto-tuning).
void enlargeUnixSendBuffer(int fd) {
    int domain = 0;
    socklen_t length = sizeof domain;
    if (::getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &length) == 0 && domain == AF_UNIX)
        ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &kUnixSendBufferBytes, sizeof kUnixSendBufferBytes);
}
} // namespace

/// One direction: bytes read from `from` on their way to `to`. `out` (bytes FdStream had
/// queued at the hand-off, or the copy buffer) is written before anything in the pipe.
struct EgressRelay::Flow {
    int from = -1;
    int to = -1;
    int pipeR = -1;
    int pipeW = -1;
    qsizetype inPipe = 0;
    qsizetype pipeCap = 0;
    bool stalled = false; ///< splice-in said EAGAIN while the pipe held bytes: may be full
    QByteArray out;
    qsizetype outOffset = 0;
    bool discard = false;  ///< read and drop (the client's side of a complete request)
    bool propagate = true; ///< shutdown(to, SHUT_WR) once `from` hit EOF and all is written
    bool eof = false;
    bool shut = false;
    std::atomic<qint64>* counter = nullptr;
    std::atomic<qint64>* activity = nullptr;

    bool copying() const { return pipeR < 0; }
    bool outPending() const { return outOffset < out.size(); }
    bool wantsRead() const {
        if (eof)
            return false;
        if (discard)
            return true;
        return copying() ? !outPending() : (!stalled && inPipe < pipeCap);
    }
    bool wantsWrite() const { return outPending() || inPipe > 0; }
    void openPipe() {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
            return; // copy mode
        pipeR = fds[0];
        pipeW = fds[1];
        const int cap = ::fcntl(pipeW, F_SETPIPE_SZ, kPipeBytes);
        pipeCap = cap > 0 ? cap : ::fcntl(pipeW, F_GETPIPE_SZ);
        if (pipeCap <= 0)
            pipeCap = 65536; // the kernel's default, pipe(7)
    }
    void closePipe() {
        if (pipeR >= 0)
            ::close(pipeR);
        if (pipeW >= 0)
            ::close(pipeW);
        pipeR = pipeW = -1;
    }
};

struct EgressRelay::Entry {
    std::shared_ptr<Tunnel> tunnel;
    Mode mode = Mode::Tunnel;
    Done done;
    int client = -1;
    int upstream = -1;
    Flow up;   // client → upstream
    Flow down; // upstream → client
    quint64 polledRound = 0;
    size_t pollIndex = 0;

    bool over() const { return mode == Mode::Tunnel ? (up.shut && down.shut) : down.shut; }
    ~Entry() {
        up.closePipe();
        down.closePipe();
        if (client >= 0)
            ::close(client);
        if (upstream >= 0)
            ::close(upstream);
    }
};

qint64 EgressRelay::nowMs() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return qint64(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

EgressRelay::EgressRelay() {
    m_wakeFd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (m_wakeFd >= 0)
        m_thread = std::thread([this] { run(); });
}

EgressRelay::~EgressRelay() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    wake();
    if (m_thread.joinable())
        m_thread.join();
    m_entries.clear();
    if (m_wakeFd >= 0)
        ::close(m_wakeFd);
}

void EgressRelay::wake() {
    if (m_wakeFd < 0)
        return;
    const quint64 one = 1;
    (void)!::write(m_wakeFd, &one, sizeof one);
}

std::shared_ptr<EgressRelay::Tunnel> EgressRelay::add(RelaySide client, RelaySide upstream,
                                                      Mode mode, Done done) {
    if (!available()) {
        ::close(client.fd);
        ::close(upstream.fd);
        return nullptr;
    }
    auto entry = std::make_unique<Entry>();
    entry->tunnel = std::make_shared<Tunnel>();
    entry->tunnel->lastActivityMs = nowMs();
    entry->mode = mode;
    entry->done = std::move(done);
    entry->client = client.fd;
    entry->upstream = upstream.fd;
    for (const int fd : {client.fd, upstream.fd}) { // splice/recv/send must never block here
        const int flags = ::fcntl(fd, F_GETFL);
        if (flags >= 0)
            ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
        enlargeUnixSendBuffer(fd);
    }

    Flow& up = entry->up;
    up.from = client.fd;
    up.to = upstream.fd;
    up.out = std::move(upstream.queued);
    up.eof = client.readEof;
    up.shut = upstream.writeShutDown;
    up.counter = &entry->tunnel->bytesUp;
    up.activity = &entry->tunnel->lastActivityMs;
    if (mode == Mode::Response) {
        up.discard = true;    // the request is complete: later client bytes are not served
        up.propagate = false; // Connection: close; the upstream ends the exchange
    } else {
        up.openPipe();
    }

    Flow& down = entry->down;
    down.from = upstream.fd;
    down.to = client.fd;
    down.out = std::move(client.queued);
    down.eof = upstream.readEof || client.shutdownRequested;
    down.shut = client.writeShutDown;
    down.counter = &entry->tunnel->bytesDown;
    down.activity = &entry->tunnel->lastActivityMs;
    down.openPipe();

    std::shared_ptr<Tunnel> tunnel = entry->tunnel;
    {
        std::lock_guard lock(m_mutex);
        m_entries.push_back(std::move(entry));
    }
    wake();
    return tunnel;
}

void EgressRelay::remove(const std::shared_ptr<Tunnel>& tunnel) {
    std::unique_ptr<Entry> gone;
    {
        std::lock_guard lock(m_mutex);
        const auto it = std::find_if(m_entries.begin(), m_entries.end(),
                                     [&](const auto& e) { return e->tunnel == tunnel; });
        if (it == m_entries.end())
            return;
        gone = std::move(*it);
        m_entries.erase(it);
    }
    gone.reset(); // closes the descriptors (a poll on them in the relay thread just ends)
    wake();
}

bool EgressRelay::pump(Flow& f, bool readable, bool writable, QString* error) {
    for (int step = 0; step < kMaxStepsPerRound; ++step) {
        bool progress = false;
        // Write first: what is already on its way keeps its order.
        if (writable && f.outPending()) {
            const ssize_t n = ::send(f.to, f.out.constData() + f.outOffset,
                                     size_t(f.out.size() - f.outOffset), MSG_NOSIGNAL);
            if (n > 0) {
                f.outOffset += n;
                if (!f.outPending()) {
                    f.out.clear();
                    f.outOffset = 0;
                }
                progress = true;
            } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                writable = false;
            } else if (n < 0 && errno != EINTR) {
                *error = errorText(errno);
                return false;
            }
        }
        if (writable && !f.outPending() && f.inPipe > 0) {
            const ssize_t n = ::splice(f.pipeR, nullptr, f.to, nullptr, size_t(f.inPipe),
                                       SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
            if (n > 0) {
                f.inPipe -= n;
                f.stalled = false;
                progress = true;
            } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                writable = false;
            } else if (n < 0 && errno != EINTR) {
                *error = errorText(errno);
                return false;
            }
        }
        if (readable && f.wantsRead()) {
            ssize_t n;
            if (f.discard) {
                char scratch[16 * 1024];
                n = ::recv(f.from, scratch, sizeof scratch, 0);
            } else if (f.copying()) {
                f.out.resize(kCopyBytes);
                f.outOffset = 0;
                n = ::recv(f.from, f.out.data(), size_t(kCopyBytes), 0);
                f.out.truncate(n > 0 ? qsizetype(n) : 0);
            } else {
                n = ::splice(f.from, nullptr, f.pipeW, nullptr, size_t(f.pipeCap - f.inPipe),
                             SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
                if (n < 0 && errno == EINVAL && f.inPipe == 0) {
                    f.closePipe(); // splice refused for this pair: copy instead
                    continue;
                }
                if (n > 0)
                    f.inPipe += n;
            }
            if (n > 0) {
                if (!f.discard)
                    *f.counter += n;
                progress = true;
                writable = true; // usually the other side takes it at once
            } else if (n == 0) {
                f.eof = true;
            } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
                readable = false;
                f.stalled = !f.copying() && !f.discard && f.inPipe > 0;
            } else if (errno != EINTR) {
                *error = errorText(errno);
                return false;
            }
        }
        if (progress)
            *f.activity = nowMs();
        else
            break;
    }
    if (f.eof && f.propagate && !f.shut && !f.wantsWrite()) {
        ::shutdown(f.to, SHUT_WR); // half-close travels on
        f.shut = true;
    }
    return true;
}

void EgressRelay::run() {
    // splice(2) into a socket whose peer is gone raises SIGPIPE (it has no MSG_NOSIGNAL); the
    // signal is directed at this thread, so blocking it here leaves just the EPIPE error.
    sigset_t pipeSignal;
    sigemptyset(&pipeSignal);
    sigaddset(&pipeSignal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipeSignal, nullptr);
    std::vector<pollfd> fds;
    quint64 round = 0;
    for (;;) {
        ++round;
        fds.clear();
        fds.push_back({m_wakeFd, POLLIN, 0});
        {
            std::lock_guard lock(m_mutex);
            if (m_stopping)
                return;
            for (const auto& e : m_entries) {
                const short clientEvents =
                    short((e->up.wantsRead() ? POLLIN : 0) | (e->down.wantsWrite() ? POLLOUT : 0));
                const short upstreamEvents =
                    short((e->down.wantsRead() ? POLLIN : 0) | (e->up.wantsWrite() ? POLLOUT : 0));
                e->polledRound = round;
                e->pollIndex = fds.size();
                // An fd without interest stays out: POLLHUP would wake us for nothing.
                fds.push_back({clientEvents ? e->client : -1, clientEvents, 0});
                fds.push_back({upstreamEvents ? e->upstream : -1, upstreamEvents, 0});
            }
        }
        if (::poll(fds.data(), nfds_t(fds.size()), -1) < 0 && errno != EINTR)
            return; // cannot happen with valid arguments; tunnels end when removed
        if (fds[0].revents & POLLIN) {
            quint64 count = 0;
            (void)!::read(m_wakeFd, &count, sizeof count);
        }
        std::lock_guard lock(m_mutex);
        if (m_stopping)
            return;
        for (auto it = m_entries.begin(); it != m_entries.end();) {
            Entry& e = **it;
            // Entries added after the poll set was built get one try in each direction.
            short clientRevents = POLLIN | POLLOUT;
            short upstreamRevents = POLLIN | POLLOUT;
            if (e.polledRound == round) {
                clientRevents = fds[e.pollIndex].revents;
                upstreamRevents = fds[e.pollIndex + 1].revents;
            }
            QString error;
            const short failed = (clientRevents | upstreamRevents) & POLLERR;
            if (failed) {
                int soError = 0;
                socklen_t length = sizeof soError;
                ::getsockopt((clientRevents & POLLERR) ? e.client : e.upstream, SOL_SOCKET,
                             SO_ERROR, &soError, &length);
                error = errorText(soError ? soError : EIO);
            }
            const auto in = [](short r) { return (r & (POLLIN | POLLHUP)) != 0; };
            const auto out = [](short r) { return (r & (POLLOUT | POLLHUP)) != 0; };
            const bool ok = !failed &&
                            pump(e.up, in(clientRevents), out(upstreamRevents), &error) &&
                            pump(e.down, in(upstreamRevents), out(clientRevents), &error);
            if (ok && !e.over()) {
                ++it;
                continue;
            }
            if (e.done)
                e.done(ok ? QString() : error);
            it = m_entries.erase(it); // closes the descriptors
        }
    }
}

} // namespace runbox::egress
