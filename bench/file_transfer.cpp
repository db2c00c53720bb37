// bench/file_transfer: upload and download of a 1 GiB file through the agent's file API (the
// `runbox cp` CLI: a chunk-signed PUT, each chunk hashed and signed as it is sent; a streamed
// GET to disk) against `cp` of the same file, in the same run (target: API throughput
// >= 0.5x cp). The agent commits uploads durably (fsync before the rename), so `cp` + `sync
// FILE` is printed as a second baseline for context. Each timed step starts after an untimed
// `sync`. An upload verified with SHA-256 cannot beat one SHA-256 pass over the file (the client
// hashes every chunk it sends, the agent every chunk it receives), so the single-pass time and
// the bound it sets (cp / SHA-256) are printed too, with the CPU seconds each side spent per
// upload: on a shared machine those move less than the wall times.
//
// Usage: bench_file_transfer [--size-mib N] [--iterations N] [--dir DIR]
// DIR (default: the temp dir) holds the source file, the copies and the agent's state, so all
// sides use the same filesystem. As root the agent runs as `nobody`, like the tests.
#include "shared/ApiClient.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QProcess>
#include <QTemporaryDir>
#include <QTextStream>
#include <QThread>

#include <algorithm>
#include <csignal>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace runbox;

namespace {

QTextStream out(stdout);

double seconds(const QElapsedTimer& t) {
    return double(t.nsecsElapsed()) / 1e9;
}

/// Runs @p program and returns its wall time in seconds; aborts the bench when it fails.
double timed(const QString& program, const QStringList& args,
             const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
    QProcess p;
    p.setProcessEnvironment(env);
    p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    QElapsedTimer t;
    t.start();
    p.start(program, args);
    if (!p.waitForFinished(-1) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        qFatal("%s %s failed", qPrintable(program), qPrintable(args.join(' ')));
    return seconds(t);
}

double best(const std::vector<double>& v) {
    return *std::min_element(v.begin(), v.end());
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/// The 1-minute load average (/proc/loadavg), to judge how shared the machine was.
QString loadAverage() {
    QFile f(QStringLiteral("/proc/loadavg"));
    return f.open(QIODevice::ReadOnly) ? QString::fromLatin1(f.readAll().split(' ').value(0))
                                       : QStringLiteral("?");
}

/// CPU seconds (user + system) used so far by the waited-for children of this process.
double childrenCpuSeconds() {
    rusage u{};
    ::getrusage(RUSAGE_CHILDREN, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/// CPU seconds (user + system, all threads) used so far by process @p pid.
double processCpuSeconds(qint64 pid) {
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray text = stat.readAll();
    // Fields after the ")" that ends the command name: state is field 3, utime 14, stime 15.
    const QList<QByteArray> f = text.mid(text.lastIndexOf(')') + 2).split(' ');
    return double(f.value(11).toLongLong() + f.value(12).toLongLong()) /
           double(::sysconf(_SC_CLK_TCK));
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    qint64 sizeMiB = 1024;
    int iterations = 5;
    QString baseDir = QDir::tempPath();
    for (int i = 1; i + 1 < args.size(); ++i) {
        if (args[i] == QLatin1String("--size-mib"))
            sizeMiB = args[i + 1].toLongLong();
        else if (args[i] == QLatin1String("--iterations"))
            iterations = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--dir"))
            baseDir = args[i + 1];
    }
    const qint64 size = sizeMiB * 1024 * 1024;
    QTemporaryDir dir(baseDir + QStringLiteral("/runbox-bench-XXXXXX"));
    ::chmod(QFile::encodeName(dir.path()).constData(), 0755);
    const bool root = ::geteuid() == 0;

    // The source file: incompressible-looking data, written once.
    const QString src = dir.filePath(QStringLiteral("src.bin"));
    {
        QFile f(src);
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(src));
        QFile urandom(QStringLiteral("/dev/urandom"));
        urandom.open(QIODevice::ReadOnly);
        const QByteArray block = urandom.read(4 * 1024 * 1024);
        for (qint64 done = 0; done < size; done += block.size())
            f.write(block.constData(), std::min<qint64>(block.size(), size - done));
    }

    // The agent.
    const QString state = dir.filePath(QStringLiteral("agent"));
    QDir().mkpath(state);
    if (root && ::chown(QFile::encodeName(state).constData(), 65534, 65534) != 0)
        qFatal("cannot chown %s", qPrintable(state));
    QProcess agent;
    agent.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    const QString agentPath = QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-agent");
    const QStringList agentArgs{QStringLiteral("--state-dir"), state, QStringLiteral("--listen"),
                                QStringLiteral("127.0.0.1:0")};
    if (root) {
        agent.start(QStringLiteral("/usr/bin/setpriv"),
                    QStringList{"--reuid=65534", "--regid=65534", "--clear-groups", "--pdeathsig",
                                "KILL", "--", agentPath} +
                        agentArgs);
    } else {
        agent.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
        agent.start(agentPath, agentArgs);
    }
    QFile urlFile(state + QStringLiteral("/agent.url"));
    QDeadlineTimer deadline(30000);
    while (!urlFile.exists() && !deadline.hasExpired())
        QThread::msleep(20);
    QFile tokenFile(state + QStringLiteral("/agent.token"));
    if (!urlFile.open(QIODevice::ReadOnly) || !tokenFile.open(QIODevice::ReadOnly))
        qFatal("the agent did not start");
    const QString url = QString::fromUtf8(urlFile.readAll().trimmed());
    const QByteArray token = tokenFile.readAll().trimmed();
    ApiClient client{QUrl(url), token};
    client.call("PUT", "/v1/settings/quotas",
                QJsonObject{{"uploadMaxFileBytes", 0}, {"maxWorkspaceBytes", 0}});
    const ApiResponse ws =
        client.call("POST", "/v1/workspaces", QJsonObject{{"isolation", "strong"}});
    const QString wsId =
        ws.json().value("workspaces").toArray().first().toObject().value("id").toString();
    if (wsId.isEmpty())
        qFatal("cannot create a workspace: %s", ws.body.constData());

    QProcessEnvironment cliEnv = QProcessEnvironment::systemEnvironment();
    cliEnv.insert(QStringLiteral("RUNBOX_URL"), url);
    cliEnv.insert(QStringLiteral("RUNBOX_TOKEN"), QString::fromLatin1(token));
    const QString cli = QStringLiteral(RUNBOX_BINARY_DIR "/cli/runbox");
    const QString copy = dir.filePath(QStringLiteral("copy.bin"));
    const QString down = dir.filePath(QStringLiteral("down.bin"));

    std::vector<double> cpTimes, cpSyncTimes, hashTimes, upTimes, downTimes, upClientCpu,
        upAgentCpu;
    timed(QStringLiteral("/bin/cp"), {src, copy}); // warm the page cache for every side
    // Every timed step starts with no dirty pages (an untimed sync): otherwise the writeback of
    // the previous step's gigabyte throttles whichever step comes next.
    auto settle = [] { timed(QStringLiteral("/bin/sync"), {}); };
    for (int i = 0; i < iterations; ++i) {
        QFile::remove(copy);
        settle();
        cpTimes.push_back(timed(QStringLiteral("/bin/cp"), {src, copy}));
        QFile::remove(copy);
        settle();
        QElapsedTimer t;
        t.start();
        timed(QStringLiteral("/bin/cp"), {src, copy});
        timed(QStringLiteral("/bin/sync"), {copy});
        cpSyncTimes.push_back(seconds(t));

        QFile f(src);
        f.open(QIODevice::ReadOnly);
        t.restart();
        ApiClient::sha256OfDevice(&f);
        hashTimes.push_back(seconds(t));

        // Like cp, the upload creates a new file (the previous one is deleted untimed).
        client.call("DELETE", "/v1/workspaces/" + wsId.toUtf8() + "/files/big.bin");
        settle();
        const double clientCpu = childrenCpuSeconds();
        const double agentCpu = processCpuSeconds(agent.processId());
        upTimes.push_back(
            timed(cli, {QStringLiteral("cp"), src, wsId + QStringLiteral(":big.bin")}, cliEnv));
        upClientCpu.push_back(childrenCpuSeconds() - clientCpu);
        upAgentCpu.push_back(processCpuSeconds(agent.processId()) - agentCpu);
        QFile::remove(down);
        settle();
        downTimes.push_back(
            timed(cli, {QStringLiteral("cp"), wsId + QStringLiteral(":big.bin"), down}, cliEnv));
    }
    QFile a(src), b(down);
    a.open(QIODevice::ReadOnly);
    b.open(QIODevice::ReadOnly);
    if (ApiClient::sha256OfDevice(&a) != ApiClient::sha256OfDevice(&b))
        qFatal("the downloaded file differs from the source");
    ::kill(pid_t(agent.processId()), SIGTERM);
    agent.waitForFinished(10000);

    const double mib = double(sizeMiB);
    auto line = [&](const char* what, const std::vector<double>& v) {
        out << QStringLiteral("  %1 best %2 s (%3 MiB/s)  median %4 s\n")
                   .arg(QLatin1String(what), -32)
                   .arg(best(v), 0, 'f', 3)
                   .arg(mib / best(v), 0, 'f', 0)
                   .arg(median(v), 0, 'f', 3);
    };
    out << QStringLiteral("file_transfer: %1 MiB, %2 interleaved rounds, same filesystem (%3)\n")
               .arg(sizeMiB)
               .arg(iterations)
               .arg(baseDir);
    line("cp", cpTimes);
    line("cp + sync FILE", cpSyncTimes);
    line("one SHA-256 pass over the file", hashTimes);
    line("runbox cp upload", upTimes);
    out << QStringLiteral("  upload CPU s: client best %1 median %2, agent best %3 median %4 "
                          "(load %5)\n")
               .arg(best(upClientCpu), 0, 'f', 3)
               .arg(median(upClientCpu), 0, 'f', 3)
               .arg(best(upAgentCpu), 0, 'f', 3)
               .arg(median(upAgentCpu), 0, 'f', 3)
               .arg(loadAverage());
    line("runbox cp download", downTimes);
    out << QStringLiteral("  ratio upload/cp    best %1x  median %2x  (vs cp+sync: %3x)  "
                          "(target >= 0.5x)\n")
               .arg(best(cpTimes) / best(upTimes), 0, 'f', 3)
               .arg(median(cpTimes) / median(upTimes), 0, 'f', 3)
               .arg(best(cpSyncTimes) / best(upTimes), 0, 'f', 3);
    out << QStringLiteral("  ceiling cp/SHA-256 best %1x  median %2x  (no SHA-256-verified upload "
                          "is faster than one hash pass)\n")
               .arg(best(cpTimes) / best(hashTimes), 0, 'f', 3)
               .arg(median(cpTimes) / median(hashTimes), 0, 'f', 3);
    out << QStringLiteral("  ratio download/cp  best %1x  median %2x  (target >= 0.5x)\n")
               .arg(best(cpTimes) / best(downTimes), 0, 'f', 3)
               .arg(median(cpTimes) / median(downTimes), 0, 'f', 3);
    return 0;
}
