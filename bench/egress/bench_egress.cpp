// bench/egress: throughput of a 256 MiB download and added per-request latency, through
// runbox-egress-bridge + the egress gateway versus directly over loopback, in one run.
// Targets (issue 4): >= 0.5x throughput, <= 1 ms added p50 latency.
//
//   bench_egress [--bytes N] [--requests N] [--repeat N]

#include "agent/egress/EgressGateway.h"
#include "agent/egress/NetworkPolicy.h"
#include "agent/egress/Resolver.h"
#include "bench/egress/UpstreamServer.h"
#include "bench/egress/bench_clients.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTimer>

#include <atomic>
#include <cstdio>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace runbox;
using namespace runbox::egress;

namespace {

/// Maps every name to 127.0.0.1.
class LoopbackResolver final : public Resolver {
public:
    void resolve(const QString&, QObject* context, Callback done) override {
        QTimer::singleShot(0, context, [done] { done({{QHostAddress::LocalHost}, {}}); });
    }
};

quint16 freePort() {
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    qint64 bytes = 256LL * 1024 * 1024;
    int requests = 200;
    int repeat = 3;
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); i += 2) {
        if (args[i] == "--bytes")
            bytes = args[i + 1].toLongLong();
        else if (args[i] == "--requests")
            requests = args[i + 1].toInt();
        else if (args[i] == "--repeat")
            repeat = args[i + 1].toInt();
    }
    const QString python = QStandardPaths::findExecutable("python3");
    const QString bridge = QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-egress-bridge");
    if (python.isEmpty() || !QFile::exists(bridge)) {
        std::fprintf(stderr, "needs python3 and %s\n", qPrintable(bridge));
        return 2;
    }

    UpstreamServer upstream(bytes);
    ApiError error;
    const NetworkPolicy policy =
        *NetworkPolicy::fromJson(QJsonObject{{"mode", "domain-allowlist"},
                                             {"allowedDomains", QJsonArray{"mirror.test"}},
                                             {"allowPrivateCidrs", QJsonArray{"127.0.0.0/8"}}},
                                 &error);
    EgressGateway gateway(policy, std::make_shared<LoopbackResolver>());
    QTemporaryDir dir;
    const QString socketPath = dir.filePath("bench.sock");
    QString listenError;
    if (!gateway.listen(socketPath, "bench", &listenError)) {
        std::fprintf(stderr, "%s\n", qPrintable(listenError));
        return 2;
    }

    const quint16 bridgePort = freePort();
    QProcess client;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("UPSTREAM_PORT", QString::number(upstream.port()));
    env.insert("BRIDGE_PORT", QString::number(bridgePort));
    env.insert("REQUESTS", QString::number(requests));
    env.insert("REPEAT", QString::number(repeat));
    client.setProcessEnvironment(env);
    client.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    client.start(bridge,
                 {"--socket", socketPath, "--listen", "127.0.0.1:" + QString::number(bridgePort),
                  "--", python, "-c", kBenchClient});
    QObject::connect(&client, &QProcess::finished, &app, &QCoreApplication::quit);
    app.exec();
    if (client.exitStatus() != QProcess::NormalExit || client.exitCode() != 0) {
        std::fprintf(stderr, "client failed (exit %d)\n", client.exitCode());
        return 1;
    }

    QHash<QString, QJsonObject> results;
    for (const QByteArray& line : client.readAllStandardOutput().split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (!o.isEmpty())
            results.insert(o.value("mode").toString(), o);
    }
    const auto mibPerSecond = [](const QJsonObject& o) {
        return o.value("bytes").toDouble() / (1024.0 * 1024.0) / o.value("seconds").toDouble();
    };
    const QJsonObject direct = results.value("direct");
    std::printf("egress bench: %lld MiB download (best of %d), %d small requests per mode\n",
                static_cast<long long>(bytes / (1024 * 1024)), repeat, requests);
    std::printf("%-14s %10s %8s %9s %9s %12s\n", "mode", "MiB/s", "ratio", "p50 ms", "p99 ms",
                "added p50 ms");
    bool targetsMet = true;
    for (const char* mode : {"direct", "absolute-form", "connect"}) {
        const QJsonObject o = results.value(mode);
        const double ratio = mibPerSecond(o) / mibPerSecond(direct);
        const double added = o.value("p50_ms").toDouble() - direct.value("p50_ms").toDouble();
        std::printf("%-14s %10.1f %8.2f %9.3f %9.3f %12.3f\n", mode, mibPerSecond(o), ratio,
                    o.value("p50_ms").toDouble(), o.value("p99_ms").toDouble(), added);
        if (QLatin1String(mode) != QLatin1String("direct"))
            targetsMet = targetsMet && ratio >= 0.5 && added <= 1.0;
    }
    std::printf("targets (>= 0.5x throughput, <= 1 ms added p50): %s\n",
                targetsMet ? "met" : "NOT met");
    return 0;
}
