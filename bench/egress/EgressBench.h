#pragma once

// What bench_egress (component) and bench_egress_agent (through the real agent) share: the
// upstream HTTP server, the Python client, the command line, and the aggregation and report of
// the client's JSON lines. Targets: >= 0.5x throughput, <= 1 ms added p50 latency.

#include <QByteArray>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QStringList>
#include <QtGlobal>

#include <algorithm>
#include <cstdio>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace egressbench {

/// The client. Per round (REPEAT rounds, default 1) and per mode in MODES (comma-separated:
/// direct, absolute-form, connect), it downloads /blob once and then sends REQUESTS small
/// requests, and prints one JSON line {mode, bytes, seconds, p50_ms, p99_ms}. `direct` goes to
/// 127.0.0.1:UPSTREAM_PORT, `forwarder` to the same upstream through SpliceForwarder on
/// 127.0.0.1:FORWARDER_PORT; the others through the proxy on 127.0.0.1:BRIDGE_PORT (default
/// 18118) to UPSTREAM_NAME (default mirror.test), absolute-form or through a CONNECT tunnel (the
/// https path).
inline const char* const kClient = R"PY(
import http.client, json, os, time
up = int(os.environ["UPSTREAM_PORT"])
proxy_host = os.environ.get("UPSTREAM_NAME", "mirror.test")
proxy = int(os.environ.get("BRIDGE_PORT", "18118"))
requests = int(os.environ["REQUESTS"])

def fetch(mode, path):
    if mode == "direct":
        c = http.client.HTTPConnection("127.0.0.1", up, timeout=120)
        c.request("GET", path)
    elif mode == "forwarder":
        c = http.client.HTTPConnection("127.0.0.1", int(os.environ["FORWARDER_PORT"]), timeout=120)
        c.request("GET", path)
    elif mode == "absolute-form":
        c = http.client.HTTPConnection("127.0.0.1", proxy, timeout=120)
        c.request("GET", "http://%s:%d%s" % (proxy_host, up, path))
    else:
        c = http.client.HTTPConnection("127.0.0.1", proxy, timeout=120)
        c.set_tunnel(proxy_host, up)
        c.request("GET", path)
    r = c.getresponse()
    total = 0
    while True:
        b = r.read(1 << 20)
        if not b:
            break
        total += len(b)
    c.close()
    return total

modes = os.environ.get("MODES", "direct,absolute-form,connect").split(",")
for _ in range(int(os.environ.get("REPEAT", "1"))):  # interleaved rounds
    for mode in modes:
        t = time.perf_counter()
        size = fetch(mode, "/blob")
        seconds = time.perf_counter() - t
        latencies = []
        for _ in range(requests):
            t0 = time.perf_counter()
            fetch(mode, "/small")
            latencies.append((time.perf_counter() - t0) * 1000)
        latencies.sort()
        print(json.dumps({"mode": mode, "bytes": size, "seconds": seconds,
                          "p50_ms": latencies[len(latencies) // 2],
                          "p99_ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]}),
              flush=True)
)PY";

/// Command line: [--bytes N] [--requests N] [--repeat N].
struct Args {
    qint64 bytes = 256LL * 1024 * 1024; ///< download size
    int requests = 200;                 ///< small requests per mode and round
    int repeat = 3;                     ///< rounds

    static Args parse(const QStringList& args) {
        Args out;
        for (int i = 1; i + 1 < args.size(); i += 2) {
            if (args[i] == QLatin1String("--bytes"))
                out.bytes = args[i + 1].toLongLong();
            else if (args[i] == QLatin1String("--requests"))
                out.requests = args[i + 1].toInt();
            else if (args[i] == QLatin1String("--repeat"))
                out.repeat = args[i + 1].toInt();
        }
        out.repeat = std::max(out.repeat, 1);
        out.requests = std::max(out.requests, 1);
        return out;
    }
};

/// The JSON objects of a client's output, one per line (other lines ignored).
inline QList<QJsonObject> jsonLines(const QByteArray& text) {
    QList<QJsonObject> out;
    for (const QByteArray& line : text.split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (!o.isEmpty())
            out.append(o);
    }
    return out;
}

/// The client's lines of all rounds, aggregated per mode: the best download (a busy host only
/// ever makes it slower) and the median of the rounds' p50 and p99 latencies.
class Results final {
public:
    void add(const QList<QJsonObject>& lines) {
        for (const QJsonObject& o : lines)
            m_lines[o.value("mode").toString()].append(o);
    }
    bool has(const QString& mode) const { return m_lines.contains(mode); }

    /// Prints the table (one row per mode, ratios against @p baseline) and whether the targets
    /// hold for every other mode but the @p reference ones (printed for context, not judged).
    /// Returns true if they do.
    bool print(const QString& baseline, const QList<QPair<QString, QString>>& modesAndLabels,
               int rounds, const QStringList& reference = {}) const {
        const Row base = row(baseline);
        std::printf("%d rounds; download: best round; latency: median of the rounds' p50/p99\n",
                    rounds);
        std::printf("%-24s %10s %8s %9s %9s %12s\n", "mode", "MiB/s", "ratio", "p50 ms", "p99 ms",
                    "added p50 ms");
        bool met = true;
        for (const auto& [mode, label] : modesAndLabels) {
            const Row r = row(mode);
            const double ratio = r.mibPerSecond / base.mibPerSecond;
            const double added = r.p50 - base.p50;
            std::printf("%-24s %10.1f %8.2f %9.3f %9.3f %12.3f\n", qPrintable(label),
                        r.mibPerSecond, ratio, r.p50, r.p99, added);
            if (mode != baseline && !reference.contains(mode))
                met = met && ratio >= 0.5 && added <= 1.0;
        }
        std::printf("targets (>= 0.5x throughput, <= 1 ms added p50): %s\n",
                    met ? "met" : "NOT met");
        return met;
    }

private:
    struct Row {
        double mibPerSecond = 0;
        double p50 = 0;
        double p99 = 0;
    };
    static double median(QList<double> values) {
        std::sort(values.begin(), values.end());
        const qsizetype n = values.size();
        return n == 0 ? 0 : (n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2);
    }
    Row row(const QString& mode) const {
        Row r;
        QList<double> p50, p99;
        for (const QJsonObject& o : m_lines.value(mode)) {
            const double mibps =
                o.value("bytes").toDouble() / (1024.0 * 1024.0) / o.value("seconds").toDouble();
            r.mibPerSecond = std::max(r.mibPerSecond, mibps);
            p50.append(o.value("p50_ms").toDouble());
            p99.append(o.value("p99_ms").toDouble());
        }
        r.p50 = median(p50);
        r.p99 = median(p99);
        return r;
    }
    QHash<QString, QList<QJsonObject>> m_lines;
};

/// A TCP server on 127.0.0.1 (a port the kernel picked) that runs serve() for each connection
/// on a thread of its own. Subclasses call start() at the end of their constructor.
class LoopbackServer {
public:
    virtual ~LoopbackServer() = default;
    quint16 port() const { return m_port; }

protected:
    /// Serves one accepted connection and closes it.
    virtual void serve(int client) = 0;
    void start() {
        m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
        ::listen(m_fd, 128);
        socklen_t length = sizeof address;
        ::getsockname(m_fd, reinterpret_cast<sockaddr*>(&address), &length);
        m_port = ntohs(address.sin_port);
        std::thread([this] {
            for (;;) {
                const int client = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC);
                if (client >= 0)
                    std::thread([this, client] { serve(client); }).detach();
            }
        }).detach();
    }

private:
    int m_fd = -1;
    quint16 m_port = 0;
};

/// Raw HTTP server on 127.0.0.1, one thread per connection: GET /blob sends @p blobBytes,
/// anything else a 2-byte body; always Connection: close.
class UpstreamServer final : public LoopbackServer {
public:
    explicit UpstreamServer(qint64 blobBytes) : m_blobBytes(blobBytes) { start(); }

private:
    void serve(int client) override {
        QByteArray head;
        char buffer[4096];
        while (!head.contains("\r\n\r\n")) {
            const ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
            if (n <= 0) {
                ::close(client);
                return;
            }
            head.append(buffer, n);
        }
        const bool blob = head.startsWith("GET /blob ");
        const qint64 size = blob ? m_blobBytes : 2;
        const QByteArray responseHead =
            "HTTP/1.1 200 OK\r\nContent-Length: " + QByteArray::number(size) +
            "\r\nConnection: close\r\n\r\n";
        sendAll(client, responseHead.constData(), responseHead.size());
        static const QByteArray chunk(1024 * 1024, 'x');
        qint64 left = size;
        while (left > 0) {
            const qint64 n = qMin<qint64>(left, chunk.size());
            if (!sendAll(client, chunk.constData(), n))
                break;
            left -= n;
        }
        ::shutdown(client, SHUT_WR);
        while (::recv(client, buffer, sizeof buffer, 0) > 0) {
        }
        ::close(client);
    }
    static bool sendAll(int fd, const char* data, qint64 size) {
        while (size > 0) {
            const ssize_t n = ::send(fd, data, size_t(size), MSG_NOSIGNAL);
            if (n <= 0)
                return false;
            data += n;
            size -= n;
        }
        return true;
    }

    qint64 m_blobBytes;
};

/// The cheapest possible extra hop, for reference: a bare TCP forwarder on 127.0.0.1 that moves
/// each connection's bytes to and from @p upstreamPort with splice(2) through a 1 MiB pipe (two
/// blocking threads per connection, no parsing, no policy). What it costs against `direct` is
/// the floor for any design that relays bytes in user space on this machine.
class SpliceForwarder final : public LoopbackServer {
public:
    explicit SpliceForwarder(quint16 upstreamPort) : m_upstreamPort(upstreamPort) { start(); }

private:
    void serve(int client) override {
        const int upstream = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        address.sin_port = htons(m_upstreamPort);
        if (::connect(upstream, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
            std::thread down([=] { pipeBytes(upstream, client); });
            pipeBytes(client, upstream);
            down.join();
        }
        ::close(upstream);
        ::close(client);
    }
    static void pipeBytes(int from, int to) {
        int pipeFds[2];
        if (::pipe2(pipeFds, O_CLOEXEC) != 0)
            return;
        ::fcntl(pipeFds[1], F_SETPIPE_SZ, 1 << 20);
        for (;;) {
            ssize_t n = ::splice(from, nullptr, pipeFds[1], nullptr, 1 << 20, SPLICE_F_MOVE);
            if (n <= 0)
                break;
            while (n > 0) {
                const ssize_t written =
                    ::splice(pipeFds[0], nullptr, to, nullptr, size_t(n), SPLICE_F_MOVE);
                if (written <= 0)
                    break;
                n -= written;
            }
            if (n > 0)
                break;
        }
        ::shutdown(to, SHUT_WR);
        ::close(pipeFds[0]);
        ::close(pipeFds[1]);
    }

    quint16 m_upstreamPort;
};

} // namespace egressbench
