// bench/exec_latency: p50/p90 of a raw `bwrap <same flags> true` against the agent's signed sync
// exec of `true` over loopback, measured in one run, and their ratio (target: agent p50
// <= 1.25 x raw p50).
//
// Usage: bench_exec_latency [--iterations N] [--agent PATH]
#include "agent/execution/strong/SandboxSpawn.h"
#include "agent/sandbox/BwrapCommand.h"
#include "agent/sandbox/CapabilityProbe.h"
#include "agent/sandbox/SandboxIdentity.h"
#include "agent/sandbox/SeccompProfile.h"
#include "shared/ApiClient.h"
#include "support/RawHttp.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTextStream>
#include <QThread>

#include <algorithm>
#include <csignal>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace runbox;

namespace {

double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return v[size_t(p * double(v.size() - 1))];
}

/// Raw baseline: the agent's own spawn of the launch (execution::spawnSandbox: the same
/// descriptors, seccomp on fd 3, passwd/group memfds, the workspace on fd 6), waited for with
/// waitpid, no event loop. With a non-empty @p guard, bwrap runs under runbox-sandbox-guard as the
/// agent runs it (the decomposition row: what the guard alone costs).
double rawRunMs(const sandbox::SandboxLaunch& launch, const QString& guard = {}) {
    QElapsedTimer t;
    t.start();
    execution::SpawnedSandbox spawned;
    QString error;
    if (!execution::spawnSandbox(launch, 0, guard, &spawned, &error))
        qFatal("raw launch: %s", qPrintable(error));
    for (int fd : {spawned.stdinFd, spawned.stdoutFd, spawned.stderrFd, spawned.statusFd,
                   spawned.setupStatusFd})
        if (fd >= 0)
            ::close(fd);
    int status = 0;
    ::waitpid(spawned.pid, &status, 0);
    return double(t.nsecsElapsed()) / 1e6;
}

/// CPU time (user + system) a process has used so far, in ms, from /proc/<pid>/stat (proc(5)).
double cpuMs(qint64 pid) {
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray line = stat.readAll();
    const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
    if (fields.size() < 13)
        return 0;
    // Fields 14 and 15 (utime, stime) are the 12th and 13th after the command name.
    return double(fields[11].toLongLong() + fields[12].toLongLong()) * 1000.0 /
           double(sysconf(_SC_CLK_TCK));
}

/// The agent's signed sync exec over one kept-alive loopback connection with a minimal blocking
/// client (tests/support RawHttp: QTcpSocket, no QNetworkAccessManager), so the figure is the
/// agent's and not the client library's.
double agentRawRunMs(testsupport::RawHttpConnection& conn, const QByteArray& token,
                     const QByteArray& path, const QByteArray& body) {
    QElapsedTimer t;
    t.start();
    const testsupport::HeaderList headers =
        testsupport::signedHeaders(token, "POST", path, body, QDateTime::currentMSecsSinceEpoch());
    if (!conn.send(testsupport::buildRequest("POST", path, headers, body)))
        qFatal("send failed");
    const testsupport::RawHttpResponse r = conn.readResponse(30000);
    const double ms = double(t.nsecsElapsed()) / 1e6;
    if (r.status != 200 || !r.body.contains("\"status\":\"completed\""))
        qFatal("agent exec did not complete: %d %s", r.status, r.body.constData());
    return ms;
}

/// The same through the project's ApiClient (QNetworkAccessManager), as the CLI does.
double agentRunMs(ApiClient& client, const QByteArray& path, const QByteArray& body) {
    QElapsedTimer t;
    t.start();
    QEventLoop loop;
    QString status;
    client.stream(
        "POST", path, body,
        [&](const QJsonObject& ev) {
            if (ev.value("type").toString() == QLatin1String("exit"))
                status = ev.value("status").toString();
        },
        [&](const ApiResponse&) { loop.quit(); });
    loop.exec();
    const double ms = double(t.nsecsElapsed()) / 1e6;
    if (status != QLatin1String("completed"))
        qFatal("agent exec did not complete: %s", qPrintable(status));
    return ms;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QStringList args = app.arguments();
    int iterations = 200;
    QString agentPath = QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-agent");
    for (int i = 1; i + 1 < args.size(); ++i) {
        if (args[i] == QLatin1String("--iterations"))
            iterations = args[i + 1].toInt();
        if (args[i] == QLatin1String("--agent"))
            agentPath = args[i + 1];
    }
    QTextStream out(stdout);
    QTemporaryDir dir;
    // A root agent runs sandboxes as workspace uids, which reach their workspace by path.
    if (::geteuid() == 0)
        ::chmod(QFile::encodeName(dir.path()).constData(), 0711);

    // Raw side: the exact launch the agent builds for `true`, on a workspace of our own.
    const QString bwrap = QStringLiteral("/usr/bin/bwrap");
    const sandbox::SandboxCapability cap = sandbox::CapabilityProbe::probe(bwrap);
    QString error;
    sandbox::LaunchSpec spec;
    spec.workspaceDir = dir.filePath(QStringLiteral("raw-ws"));
    QDir().mkpath(spec.workspaceDir);
    spec.command = {QStringLiteral("/usr/bin/true")};
    spec.seccompPath =
        sandbox::SeccompProfile::publish(sandbox::SeccompProfileKind::Baseline, dir.path(), &error);
    spec.identity = sandbox::SandboxIdentity::forAgent();
    spec.stateDir = dir.path();
    const sandbox::SandboxLaunch launch = sandbox::BwrapCommand::build(cap, spec);

    // Agent side.
    const QString state = dir.filePath(QStringLiteral("agent"));
    QProcess agent;
    agent.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    // A qFatal below aborts without QProcess's destructor: the agent (and, through its guard,
    // every sandbox it runs) must end with the bench, not outlive it.
    agent.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
    agent.start(agentPath, {QStringLiteral("--state-dir"), state, QStringLiteral("--listen"),
                            QStringLiteral("127.0.0.1:0")});
    QFile urlFile(state + QStringLiteral("/agent.url"));
    for (int i = 0; i < 200 && !urlFile.exists(); ++i)
        QThread::msleep(50);
    if (!urlFile.open(QIODevice::ReadOnly))
        qFatal("agent did not start");
    QFile tokenFile(state + QStringLiteral("/agent.token"));
    tokenFile.open(QIODevice::ReadOnly);
    const QUrl url(QString::fromUtf8(urlFile.readAll().trimmed()));
    const QByteArray token = tokenFile.readAll().trimmed();
    ApiClient client(url, token);
    const ApiResponse ws =
        client.call("POST", "/v1/workspaces", QJsonObject{{"isolation", "strong"}});
    const QByteArray wsId =
        ws.json().value("workspaces").toArray().first().toObject().value("id").toString().toUtf8();
    const QByteArray path = "/v1/workspaces/" + wsId + "/exec";
    const QByteArray body = R"({"argv":["/usr/bin/true"]})";
    testsupport::RawHttpConnection conn;
    if (!conn.connectTo(quint16(url.port())))
        qFatal("cannot connect to the agent");

    for (int i = 0; i < 10; ++i) { // warm-up all sides
        rawRunMs(launch);
        agentRawRunMs(conn, token, path, body);
        agentRunMs(client, path, body);
    }
    const QString guard =
        QFileInfo(agentPath).dir().filePath(QStringLiteral("runbox-sandbox-guard"));
    std::vector<double> raw, guarded, viaAgent, viaApiClient;
    double agentCpu = 0, clientCpu = 0;
    for (int i = 0; i < iterations; ++i) { // interleaved so all see the same machine state
        raw.push_back(rawRunMs(launch));
        guarded.push_back(rawRunMs(launch, guard));
        const double agentBefore = cpuMs(agent.processId()), clientBefore = cpuMs(getpid());
        viaAgent.push_back(agentRawRunMs(conn, token, path, body));
        agentCpu += cpuMs(agent.processId()) - agentBefore;
        clientCpu += cpuMs(getpid()) - clientBefore;
        viaApiClient.push_back(agentRunMs(client, path, body));
    }
    agent.terminate();
    agent.waitForFinished(5000);

    const double rawP50 = percentile(raw, 0.5), rawP90 = percentile(raw, 0.9);
    const double agP50 = percentile(viaAgent, 0.5), agP90 = percentile(viaAgent, 0.9);
    out << QStringLiteral("exec_latency: %1 iterations each, interleaved\n").arg(iterations);
    out << QStringLiteral("  raw bwrap true      p50 %1 ms  p90 %2 ms\n")
               .arg(rawP50, 0, 'f', 2)
               .arg(rawP90, 0, 'f', 2);
    out << QStringLiteral("  raw guard + bwrap   p50 %1 ms  p90 %2 ms\n")
               .arg(percentile(guarded, 0.5), 0, 'f', 2)
               .arg(percentile(guarded, 0.9), 0, 'f', 2);
    out << QStringLiteral("  agent signed exec   p50 %1 ms  p90 %2 ms\n")
               .arg(agP50, 0, 'f', 2)
               .arg(agP90, 0, 'f', 2);
    out << QStringLiteral(
               "  via ApiClient (QNAM) p50 %1 ms  p90 %2 ms  (the CLI's client library)\n")
               .arg(percentile(viaApiClient, 0.5), 0, 'f', 2)
               .arg(percentile(viaApiClient, 0.9), 0, 'f', 2);
    out << QStringLiteral("  ratio agent/raw     p50 %1x  p90 %2x  (target p50 <= 1.25x)\n")
               .arg(agP50 / rawP50, 0, 'f', 3)
               .arg(agP90 / rawP90, 0, 'f', 3);
    out << QStringLiteral(
               "  CPU per exec        agent %1 ms  client %2 ms  (utime+stime, %3 ms ticks)\n")
               .arg(agentCpu / iterations, 0, 'f', 2)
               .arg(clientCpu / iterations, 0, 'f', 2)
               .arg(1000.0 / double(sysconf(_SC_CLK_TCK)), 0, 'f', 0);
    return 0;
}
