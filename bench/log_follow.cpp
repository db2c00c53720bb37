// bench/log_follow: throughput of following a managed execution's log through the API
// (`GET /v1/executions/{id}/log?follow=true`) while `head -c N /dev/zero` runs in the sandbox,
// against reading the same command's stdout from a raw pipe, in one run (target:
// >= 0.3x the raw pipe). The headline figure is the framed format (`format=frames`, read as
// `runbox logs -f` reads it: plain socket, frames decoded to bytes); the NDJSON format
// (QNetworkAccessManager, every event decoded back to bytes) is printed on a second line.
//
// Usage: bench_log_follow [--bytes N] (default 1 GiB) [--no-ndjson] [--agent PATH]
// --agent runs another build's runbox-agent (bench/ab-compare).
#include "support/AgentProcess.h"
#include "support/ManagedApi.h"

#include "cli/HttpStream.h"
#include "shared/LogFrames.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QTextStream>
#include <QThread>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace runbox;
using namespace runbox::testsupport;

extern char** environ;

namespace {

/// Seconds to read all of `head -c bytes /dev/zero` from a pipe (64 KiB reads).
double rawPipeSeconds(qint64 bytes, qint64* received) {
    int fds[2];
    if (::pipe(fds) != 0)
        qFatal("pipe");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    const QByteArray count = QByteArray::number(bytes);
    char* argv[] = {const_cast<char*>("/usr/bin/head"), const_cast<char*>("-c"),
                    const_cast<char*>(count.constData()), const_cast<char*>("/dev/zero"), nullptr};
    QElapsedTimer timer;
    timer.start();
    pid_t pid = 0;
    if (posix_spawn(&pid, argv[0], &actions, nullptr, argv, environ) != 0)
        qFatal("posix_spawn head");
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    static char buffer[64 * 1024];
    *received = 0;
    for (;;) {
        const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
        if (n <= 0)
            break;
        *received += n;
    }
    ::close(fds[0]);
    ::waitpid(pid, nullptr, 0);
    return double(timer.nsecsElapsed()) / 1e9;
}

QString submitHead(AgentProcess& agent, const QString& workspace, qint64 bytes) {
    const ApiResponse r = submitExecution(
        *agent.client(), workspace,
        {{"argv", QJsonArray{"/usr/bin/head", "-c", QString::number(bytes), "/dev/zero"}},
         {"maxOutputBytes", 0}});
    if (r.status != 202)
        qFatal("submit: %d %s", r.status, r.body.constData());
    return r.json().value(QLatin1String("executionId")).toString();
}

/// Seconds from submitting the managed execution to its exit event, following its log in the
/// framed format over a plain socket (as `runbox logs -f`).
double followFramesSeconds(AgentProcess& agent, const QString& workspace, qint64 bytes,
                           qint64* received, QString* status) {
    QElapsedTimer timer;
    timer.start();
    const QString id = submitHead(agent, workspace, bytes);
    *received = 0;
    qint64 firstNs = -1, lastNs = -1;
    logframes::FrameDecoder decoder(
        [&](logframes::FrameType, QByteArrayView piece) {
            if (firstNs < 0)
                firstNs = timer.nsecsElapsed();
            lastNs = timer.nsecsElapsed();
            *received += piece.size();
        },
        [&](const QJsonObject& ev) {
            if (ev.value(QLatin1String("type")).toString() == QLatin1String("exit"))
                *status = ev.value(QLatin1String("status")).toString();
        });
    ApiClient* client = agent.client();
    const cli::StreamResult r = cli::streamGet(
        client->baseUrl(), client->token(), client->pinnedSha256(), client->clockOffsetMs(),
        "/v1/executions/" + id.toUtf8() + "/log?offset=0&follow=true&format=frames", {},
        [&](QByteArrayView body) { return decoder.feed(body); });
    if (r.status != 200 || !r.complete)
        qFatal("frames follow: %d %s", r.status, qPrintable(r.transportError));
    const qint64 endNs = timer.nsecsElapsed();
    QTextStream(stdout) << QStringLiteral("  (frames: first byte %1 s, last byte %2 s, exit event "
                                          "%3 s after submit)\n")
                               .arg(double(firstNs) / 1e9, 0, 'f', 3)
                               .arg(double(lastNs) / 1e9, 0, 'f', 3)
                               .arg(double(endNs) / 1e9, 0, 'f', 3);
    return double(endNs) / 1e9;
}

/// Seconds from submitting the managed execution to its exit event, following its log.
double followSeconds(AgentProcess& agent, const QString& workspace, qint64 bytes, qint64* received,
                     QString* status) {
    QElapsedTimer timer;
    timer.start();
    const QString id = submitHead(agent, workspace, bytes);
    // Decode every frame back to bytes (as a client would), counting them without keeping them.
    *received = 0;
    QEventLoop loop;
    agent.client()->stream(
        "GET", "/v1/executions/" + id.toUtf8() + "/log?offset=0&follow=true", {},
        [&](const QJsonObject& ev) {
            const QString type = ev.value(QLatin1String("type")).toString();
            if (type == QLatin1String("stdout") || type == QLatin1String("stderr"))
                *received += ev.contains(QLatin1String("dataBase64"))
                                 ? QByteArray::fromBase64(
                                       ev.value(QLatin1String("dataBase64")).toString().toLatin1())
                                       .size()
                                 : ev.value(QLatin1String("data")).toString().toUtf8().size();
            else if (type == QLatin1String("exit"))
                *status = ev.value(QLatin1String("status")).toString();
        },
        [&](const ApiResponse&) { loop.quit(); });
    loop.exec();
    const double seconds = double(timer.nsecsElapsed()) / 1e9;
    return seconds;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    qint64 bytes = qint64(1) << 30;
    const qsizetype at = args.indexOf(QStringLiteral("--bytes"));
    if (at > 0 && at + 1 < args.size())
        bytes = args.at(at + 1).toLongLong();
    QTextStream out(stdout);

    AgentProcess agent;
    AgentOptions options;
    options.extraEnv.insert(QStringLiteral("RUNBOX_MAX_OUTPUT_BYTES"), QStringLiteral("0"));
    const qsizetype agentAt = args.indexOf(QStringLiteral("--agent"));
    if (agentAt > 0 && agentAt + 1 < args.size())
        options.agentPath = args.at(agentAt + 1);
    if (!agent.start(options))
        qFatal("agent: %s", qPrintable(agent.errorString()));
    const QString ws = agent.createWorkspace();

    const bool ndjson = !args.contains(QStringLiteral("--no-ndjson"));
    qint64 rawBytes = 0, apiBytes = 0, ndjsonBytes = 0;
    QString status, ndjsonStatus;
    rawPipeSeconds(16 << 20, &rawBytes); // warm-up
    const double rawSeconds = rawPipeSeconds(bytes, &rawBytes);
    const double apiSeconds = followFramesSeconds(agent, ws, bytes, &apiBytes, &status);
    const double ndjsonSeconds =
        ndjson ? followSeconds(agent, ws, bytes, &ndjsonBytes, &ndjsonStatus) : 0;
    if (rawBytes != bytes || apiBytes != bytes || status != QLatin1String("completed") ||
        (ndjson && (ndjsonBytes != bytes || ndjsonStatus != QLatin1String("completed"))))
        qFatal("incomplete: raw %lld, frames %lld (%s), ndjson %lld bytes (%s)", rawBytes, apiBytes,
               qPrintable(status), ndjsonBytes, qPrintable(ndjsonStatus));

    const double mib = double(bytes) / double(1 << 20);
    const double rawRate = mib / rawSeconds, apiRate = mib / apiSeconds;
    const double ndjsonRate = ndjson ? mib / ndjsonSeconds : 0;
    out << QStringLiteral("log_follow: head -c %1 /dev/zero (%2 MiB), %3 CPU cores\n")
               .arg(bytes)
               .arg(mib, 0, 'f', 0)
               .arg(QThread::idealThreadCount());
    out << QStringLiteral("  raw pipe              %1 s  %2 MiB/s\n")
               .arg(rawSeconds, 0, 'f', 3)
               .arg(rawRate, 0, 'f', 1);
    out << QStringLiteral("  log API follow frames %1 s  %2 MiB/s  (submit to exit event)\n")
               .arg(apiSeconds, 0, 'f', 3)
               .arg(apiRate, 0, 'f', 1);
    out << QStringLiteral("  ratio api/raw         %1x  (target >= 0.3x)\n")
               .arg(apiRate / rawRate, 0, 'f', 3);
    if (ndjson)
        out << QStringLiteral("  log API follow ndjson %1 s  %2 MiB/s  ratio %3x\n")
                   .arg(ndjsonSeconds, 0, 'f', 3)
                   .arg(ndjsonRate, 0, 'f', 1)
                   .arg(ndjsonRate / rawRate, 0, 'f', 3);
    agent.stop();
    return 0;
}
