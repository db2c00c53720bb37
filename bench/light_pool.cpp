// bench/light_pool: light workspaces over the agent's HTTP API (docs/light-workspaces.md), in one
// run on this machine: a real runbox-agent (started here, as root) and C concurrent keep-alive
// clients over loopback, every request signed (docs/contracts.md "Request signing").
//   one by one  N × POST /v1/workspaces {"isolation":"light"}, N × exec `true` (one per
//               workspace, until the whole NDJSON stream is read), N × DELETE /v1/workspaces/{id}
//   batch       1 × POST {"count":N}, N × exec `true`, 1 × DELETE /v1/workspaces?isolation=light
//   raw         fork + Landlock (same rules) + setuid + execve `true`, waited for
//   (LightRawLaunch.h)
//   1 client    the same three requests from a single client (service latency without queueing)
// Prints each phase's wall time and per-request p50/p90, the cycle totals and exec/raw.
// Targets: whole 1000-cycle ≤ 1.5 s, create p50 ≤ 0.3 ms, exec p50 ≤ 2 × raw p50,
// delete p50 ≤ 1 ms.
//
// Usage (as root): bench_light_pool [--count N] [--clients C] [--raw N] [--probes N]
//                                   [--agent PATH]
// --agent runs another build's runbox-agent (its runbox-light-supervisor next to it), so two
// builds can be measured interleaved by the same client.
#include "LightRawLaunch.h"

#include "shared/RequestSigner.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QUrl>

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <cstdio>
#include <ctime>
#include <functional>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

struct Response {
    int status = 0;
    QByteArray body;
};

/// A minimal blocking HTTP/1.1 keep-alive client (one per thread): signed requests, bodies
/// framed by Content-Length or chunked.
class Client final {
public:
    Client(quint16 port, QByteArray token) : m_port(port), m_token(std::move(token)) {}
    ~Client() {
        if (m_fd >= 0)
            ::close(m_fd);
    }

    Response request(const QByteArray& method, const QByteArray& path, const QByteArray& body) {
        if (m_fd < 0 && !connectNow())
            return {};
        QByteArray out = method + ' ' + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
        for (const auto& [name, value] : runbox::RequestSigner::headersFor(
                 m_token, method, path, body, QDateTime::currentMSecsSinceEpoch()))
            out += name + ": " + value + "\r\n";
        out +=
            "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) +
            "\r\n\r\n" + body;
        if (!sendAll(out))
            return {};
        return readResponse();
    }

private:
    bool connectNow() {
        m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(m_port);
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        const int one = 1;
        ::setsockopt(m_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        return ::connect(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
    }
    bool sendAll(const QByteArray& data) {
        qsizetype sent = 0;
        while (sent < data.size()) {
            const ssize_t n =
                ::send(m_fd, data.constData() + sent, size_t(data.size() - sent), MSG_NOSIGNAL);
            if (n <= 0)
                return false;
            sent += n;
        }
        return true;
    }
    bool fill() {
        char buffer[65536];
        const ssize_t n = ::recv(m_fd, buffer, sizeof(buffer), 0);
        if (n <= 0)
            return false;
        m_in.append(buffer, qsizetype(n));
        return true;
    }
    bool readLine(QByteArray* line) {
        qsizetype end;
        while ((end = m_in.indexOf("\r\n")) < 0)
            if (!fill())
                return false;
        *line = m_in.left(end);
        m_in.remove(0, end + 2);
        return true;
    }
    bool readExactly(qsizetype size, QByteArray* out) {
        while (m_in.size() < size)
            if (!fill())
                return false;
        out->append(m_in.left(size));
        m_in.remove(0, size);
        return true;
    }
    Response readResponse() {
        Response r;
        QByteArray line;
        if (!readLine(&line))
            return r;
        r.status = line.mid(9, 3).toInt();
        qint64 length = -1;
        bool chunked = false;
        while (readLine(&line) && !line.isEmpty()) {
            const QByteArray lower = line.toLower();
            if (lower.startsWith("content-length:"))
                length = lower.mid(15).trimmed().toLongLong();
            else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked"))
                chunked = true;
        }
        if (!chunked) {
            readExactly(qsizetype(qMax<qint64>(0, length)), &r.body);
            return r;
        }
        for (;;) {
            if (!readLine(&line))
                return r;
            const qsizetype size = line.toLongLong(nullptr, 16);
            if (size == 0) {
                readLine(&line); // the blank line after the last chunk
                return r;
            }
            readExactly(size, &r.body);
            readLine(&line);
        }
    }

    quint16 m_port;
    QByteArray m_token;
    int m_fd = -1;
    QByteArray m_in;
};

struct Phase {
    const char* name = "";
    double wallMs = 0;
    std::vector<double> samples;
    int failures = 0;
};

double percentile(std::vector<double> v, double p) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[size_t(p * double(v.size() - 1))];
}

void print(const Phase& phase) {
    std::printf("%-28s n=%-5zu wall=%8.1f ms  p50=%7.3f ms  p90=%7.3f ms%s\n", phase.name,
                phase.samples.size(), phase.wallMs, percentile(phase.samples, 0.5),
                percentile(phase.samples, 0.9),
                phase.failures ? qPrintable(QStringLiteral("  (%1 FAILED)").arg(phase.failures))
                               : "");
}

/// With RUNBOX_BENCH_MARKS set, prints a phase's start and end on stderr in CLOCK_MONOTONIC
/// seconds, to cut a `perf record -k CLOCK_MONOTONIC` profile into phases.
void markPhase(const char* name, const char* what) {
    static const bool enabled = qEnvironmentVariableIsSet("RUNBOX_BENCH_MARKS");
    if (!enabled)
        return;
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    std::fprintf(stderr, "mark %s %s %ld.%09ld\n", what, name, long(now.tv_sec), now.tv_nsec);
}

/// Runs @p count requests from @p clients threads; @p one(client, i) returns true on success.
Phase runConcurrent(const char* name, int count, int clients, quint16 port, const QByteArray& token,
                    const std::function<bool(Client&, int)>& one) {
    Phase phase;
    phase.name = name;
    markPhase(name, "start");
    std::vector<std::vector<double>> perThread(static_cast<size_t>(clients));
    std::atomic<int> next{0}, failures{0};
    QElapsedTimer wall;
    wall.start();
    std::vector<std::thread> threads;
    for (int t = 0; t < clients; ++t) {
        threads.emplace_back([&, t] {
            Client client(port, token);
            for (int i = next++; i < count; i = next++) {
                QElapsedTimer timer;
                timer.start();
                if (!one(client, i))
                    ++failures;
                perThread[size_t(t)].push_back(timer.nsecsElapsed() / 1e6);
            }
        });
    }
    for (auto& thread : threads)
        thread.join();
    phase.wallMs = wall.nsecsElapsed() / 1e6;
    markPhase(name, "end");
    for (const auto& samples : perThread)
        phase.samples.insert(phase.samples.end(), samples.begin(), samples.end());
    phase.failures = failures;
    return phase;
}

bool execTrue(Client& client, const QString& id) {
    const Response r =
        client.request("POST", "/v1/workspaces/" + id.toUtf8() + "/exec", R"({"argv":["true"]})");
    return r.status == 200 && r.body.contains(R"("status":"completed")");
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    int count = 1000, clients = 32, rawCount = 300, probes = 200;
    QString agentPath = QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-agent");
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); i += 2) {
        if (args[i] == QLatin1String("--count"))
            count = qBound(1, args[i + 1].toInt(), 4096);
        else if (args[i] == QLatin1String("--clients"))
            clients = qBound(1, args[i + 1].toInt(), 256);
        else if (args[i] == QLatin1String("--raw"))
            rawCount = qMax(1, args[i + 1].toInt());
        else if (args[i] == QLatin1String("--probes"))
            probes = qBound(1, args[i + 1].toInt(), 4096);
        else if (args[i] == QLatin1String("--agent"))
            agentPath = args[i + 1];
    }
    if (::geteuid() != 0) {
        std::fprintf(stderr, "bench_light_pool needs root (light workspaces setuid)\n");
        return 1;
    }
    // Under the build tree, not /tmp: the workspaces then get their host runtime dirs masked.
    QTemporaryDir state(QStringLiteral(RUNBOX_BINARY_DIR "/bench-light-pool-XXXXXX"));
    QProcess agent;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("RUNBOX_LIGHT_UID_FIRST"), QStringLiteral("45000"));
    env.insert(QStringLiteral("RUNBOX_LIGHT_UID_COUNT"), QStringLiteral("10000"));
    agent.setProcessEnvironment(env);
    agent.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    agent.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
    agent.start(agentPath, {QStringLiteral("--state-dir"), state.path(), QStringLiteral("--listen"),
                            QStringLiteral("127.0.0.1:0")});
    QFile urlFile(state.path() + QStringLiteral("/agent.url"));
    for (int i = 0; i < 600 && !urlFile.exists(); ++i)
        QThread::msleep(50);
    QFile tokenFile(state.path() + QStringLiteral("/agent.token"));
    if (!urlFile.open(QIODevice::ReadOnly) || !tokenFile.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "the agent did not start\n");
        return 1;
    }
    const quint16 port = quint16(QUrl(QString::fromUtf8(urlFile.readAll().trimmed())).port());
    const QByteArray token = tokenFile.readAll().trimmed();

    // Raw baseline first, in the same run (its home owned by a uid outside the pool).
    const std::vector<double> raw =
        lightbench::rawLaunches(state.path() + QStringLiteral("-raw"), 19999, rawCount);
    Phase rawPhase;
    rawPhase.name = "raw fork+landlock+setuid+exec";
    rawPhase.samples = raw;

    // One by one.
    std::vector<QString> ids(static_cast<size_t>(count));
    const Phase create =
        runConcurrent("create (one by one)", count, clients, port, token, [&](Client& c, int i) {
            const Response r =
                c.request("POST", "/v1/workspaces", R"({"isolation":"light","idleTimeoutS":0})");
            const QJsonArray made =
                QJsonDocument::fromJson(r.body).object().value("workspaces").toArray();
            if (r.status != 201 || made.size() != 1)
                return false;
            ids[size_t(i)] = made.first().toObject().value("id").toString();
            return true;
        });
    const Phase exec = runConcurrent("exec `true` (one by one)", count, clients, port, token,
                                     [&](Client& c, int i) { return execTrue(c, ids[size_t(i)]); });
    const Phase remove =
        runConcurrent("delete (one by one)", count, clients, port, token, [&](Client& c, int i) {
            return c.request("DELETE", "/v1/workspaces/" + ids[size_t(i)].toUtf8(), {}).status ==
                   200;
        });

    // Batch.
    Client single(port, token);
    Phase batchCreate;
    batchCreate.name = "create (one batch)";
    QElapsedTimer timer;
    timer.start();
    const Response made = single.request(
        "POST", "/v1/workspaces",
        QStringLiteral(R"({"isolation":"light","idleTimeoutS":0,"count":%1})").arg(count).toUtf8());
    batchCreate.wallMs = timer.nsecsElapsed() / 1e6;
    batchCreate.samples = {batchCreate.wallMs};
    std::vector<QString> batchIds;
    for (const QJsonValue& ws :
         QJsonDocument::fromJson(made.body).object().value("workspaces").toArray())
        batchIds.push_back(ws.toObject().value("id").toString());
    batchCreate.failures = count - int(batchIds.size());
    const Phase batchExec =
        runConcurrent("exec `true` (batch)", int(batchIds.size()), clients, port, token,
                      [&](Client& c, int i) { return execTrue(c, batchIds[size_t(i)]); });
    Phase batchDelete;
    batchDelete.name = "delete all (one request)";
    timer.restart();
    const Response deleted = single.request("DELETE", "/v1/workspaces?isolation=light", {});
    batchDelete.wallMs = timer.nsecsElapsed() / 1e6;
    batchDelete.samples = {batchDelete.wallMs};
    batchDelete.failures = deleted.status == 200 ? 0 : 1;

    // Service latency: the same three requests from one client, nothing else in flight (with
    // C clients, a request's latency is mostly its wait behind the others). First let the agent
    // finish the batch's background work (refilling the spare homes the batch took, confirming
    // the deleted uids), so that it does not compete with these requests.
    QThread::msleep(1500);
    std::vector<QString> probeIds(static_cast<size_t>(probes));
    const Phase probeCreate =
        runConcurrent("create, 1 client", probes, 1, port, token, [&](Client& c, int i) {
            const Response r =
                c.request("POST", "/v1/workspaces", R"({"isolation":"light","idleTimeoutS":0})");
            const QJsonArray made =
                QJsonDocument::fromJson(r.body).object().value("workspaces").toArray();
            if (r.status != 201 || made.size() != 1)
                return false;
            probeIds[size_t(i)] = made.first().toObject().value("id").toString();
            return true;
        });
    const Phase probeExec =
        runConcurrent("exec `true`, 1 client", probes, 1, port, token,
                      [&](Client& c, int i) { return execTrue(c, probeIds[size_t(i)]); });
    const Phase probeDelete =
        runConcurrent("delete, 1 client", probes, 1, port, token, [&](Client& c, int i) {
            return c.request("DELETE", "/v1/workspaces/" + probeIds[size_t(i)].toUtf8(), {})
                       .status == 200;
        });

    agent.terminate();
    agent.waitForFinished(30000);

    std::printf("light_pool over HTTP: %d workspaces, %d concurrent clients, loopback, signed\n",
                count, clients);
    const Phase* phases[] = {&rawPhase,  &create,      &exec,        &remove,    &batchCreate,
                             &batchExec, &batchDelete, &probeCreate, &probeExec, &probeDelete};
    for (const Phase* phase : phases)
        print(*phase);
    const double cycle = create.wallMs + exec.wallMs + remove.wallMs;
    const double batchCycle = batchCreate.wallMs + batchExec.wallMs + batchDelete.wallMs;
    std::printf("1000-cycle wall: one by one %.1f ms, batch %.1f ms (target <= 1500 ms)\n", cycle,
                batchCycle);
    const double rawP50 = percentile(raw, 0.5);
    std::printf("with %d clients: exec p50 / raw p50 %.2f one by one, %.2f batch (target <= 2); "
                "create p50 %.3f ms (target <= 0.3); delete p50 %.3f ms (target <= 1)\n",
                clients, percentile(exec.samples, 0.5) / rawP50,
                percentile(batchExec.samples, 0.5) / rawP50, percentile(create.samples, 0.5),
                percentile(remove.samples, 0.5));
    std::printf("1 client: exec p50 / raw p50 %.2f; create p50 %.3f ms; delete p50 %.3f ms\n",
                percentile(probeExec.samples, 0.5) / rawP50, percentile(probeCreate.samples, 0.5),
                percentile(probeDelete.samples, 0.5));
    int failures = 0;
    for (const Phase* phase : phases)
        failures += phase->failures;
    return failures == 0 ? 0 : 2;
}
