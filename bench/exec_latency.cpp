// bench/exec_latency: p50/p90 of a raw `bwrap <same flags> true` against the agent's signed sync
// exec of `true` over loopback, measured in one run, and their ratio (issue #2 target: agent p50
// <= 1.25 x raw p50).
//
// Usage: bench_exec_latency [--iterations N] [--agent PATH]
#include "agent/sandbox/BwrapCommand.h"
#include "agent/sandbox/CapabilityProbe.h"
#include "agent/sandbox/SandboxIdentity.h"
#include "agent/sandbox/SeccompProfile.h"
#include "shared/ApiClient.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTextStream>
#include <QThread>

#include <algorithm>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace runbox;

namespace {

double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return v[size_t(p * double(v.size() - 1))];
}

/// Raw baseline: posix_spawn of bwrap with the launch's argv and env, seccomp on fd 3, wait.
double rawRunMs(const sandbox::SandboxLaunch& launch) {
    std::vector<QByteArray> store;
    std::vector<char*> argv, envp;
    store.push_back(QFile::encodeName(launch.program));
    for (const QString& a : launch.arguments)
        store.push_back(a.toUtf8());
    const size_t argc = store.size();
    for (auto it = launch.environment.begin(); it != launch.environment.end(); ++it)
        store.push_back((it.key() + '=' + it.value()).toUtf8());
    for (size_t i = 0; i < store.size(); ++i)
        (i < argc ? argv : envp).push_back(store[i].data());
    argv.push_back(nullptr);
    envp.push_back(nullptr);
    QElapsedTimer t;
    t.start();
    const int seccomp = ::open(QFile::encodeName(launch.fds.first().path).constData(), O_RDONLY);
    const int devnull = ::open("/dev/null", O_WRONLY);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, seccomp, 3);
    posix_spawn_file_actions_adddup2(&fa, devnull, 4);
    pid_t pid = 0;
    posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    ::close(seccomp);
    ::close(devnull);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return double(t.nsecsElapsed()) / 1e6;
}

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
    spec.identityDir = dir.filePath(QStringLiteral("identity"));
    sandbox::SandboxIdentity::write(spec.identityDir);
    spec.stateDir = dir.path();
    const sandbox::SandboxLaunch launch = sandbox::BwrapCommand::build(cap, spec);

    // Agent side.
    const QString state = dir.filePath(QStringLiteral("agent"));
    QProcess agent;
    agent.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    agent.start(agentPath, {QStringLiteral("--state-dir"), state, QStringLiteral("--listen"),
                            QStringLiteral("127.0.0.1:0")});
    QFile urlFile(state + QStringLiteral("/agent.url"));
    for (int i = 0; i < 200 && !urlFile.exists(); ++i)
        QThread::msleep(50);
    if (!urlFile.open(QIODevice::ReadOnly))
        qFatal("agent did not start");
    QFile tokenFile(state + QStringLiteral("/agent.token"));
    tokenFile.open(QIODevice::ReadOnly);
    ApiClient client(QUrl(QString::fromUtf8(urlFile.readAll().trimmed())),
                     tokenFile.readAll().trimmed());
    const ApiResponse ws =
        client.call("POST", "/v1/workspaces", QJsonObject{{"isolation", "strong"}});
    const QByteArray wsId =
        ws.json().value("workspaces").toArray().first().toObject().value("id").toString().toUtf8();
    const QByteArray path = "/v1/workspaces/" + wsId + "/exec";
    const QByteArray body = R"({"argv":["/usr/bin/true"]})";

    for (int i = 0; i < 10; ++i) { // warm-up both sides
        rawRunMs(launch);
        agentRunMs(client, path, body);
    }
    std::vector<double> raw, viaAgent;
    for (int i = 0; i < iterations; ++i) { // interleaved so both see the same machine state
        raw.push_back(rawRunMs(launch));
        viaAgent.push_back(agentRunMs(client, path, body));
    }
    agent.terminate();
    agent.waitForFinished(5000);

    const double rawP50 = percentile(raw, 0.5), rawP90 = percentile(raw, 0.9);
    const double agP50 = percentile(viaAgent, 0.5), agP90 = percentile(viaAgent, 0.9);
    out << QStringLiteral("exec_latency: %1 iterations each, interleaved\n").arg(iterations);
    out << QStringLiteral("  raw bwrap true      p50 %1 ms  p90 %2 ms\n")
               .arg(rawP50, 0, 'f', 2)
               .arg(rawP90, 0, 'f', 2);
    out << QStringLiteral("  agent signed exec   p50 %1 ms  p90 %2 ms\n")
               .arg(agP50, 0, 'f', 2)
               .arg(agP90, 0, 'f', 2);
    out << QStringLiteral("  ratio agent/raw     p50 %1x  p90 %2x  (target p50 <= 1.25x)\n")
               .arg(agP50 / rawP50, 0, 'f', 3)
               .arg(agP90 / rawP90, 0, 'f', 3);
    return 0;
}
