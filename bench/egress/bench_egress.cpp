// bench/egress: throughput of a 256 MiB download and added per-request latency, through
// runbox-egress-bridge + the egress gateway versus directly over loopback, in one run.
// Targets: >= 0.5x throughput, <= 1 ms added p50 latency.
//
//   bench_egress [--bytes N] [--requests N] [--repeat N]

#include "agent/egress/EgressGateway.h"
#include "agent/egress/NetworkPolicy.h"
#include "agent/egress/Resolver.h"
#include "bench/egress/EgressBench.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QProcess>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdio>

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
    const egressbench::Args args = egressbench::Args::parse(app.arguments());
    const QString python = QStandardPaths::findExecutable("python3");
    const QString bridge = QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-egress-bridge");
    if (python.isEmpty() || !QFile::exists(bridge)) {
        std::fprintf(stderr, "needs python3 and %s\n", qPrintable(bridge));
        return 2;
    }

    egressbench::UpstreamServer upstream(args.bytes);
    Error error;
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
    env.insert("REQUESTS", QString::number(args.requests));
    env.insert("REPEAT", QString::number(args.repeat));
    client.setProcessEnvironment(env);
    client.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    client.start(bridge, {"--socket", socketPath, "--hand-over", "--listen",
                          "127.0.0.1:" + QString::number(bridgePort), "--", python, "-c",
                          egressbench::kClient});
    QObject::connect(&client, &QProcess::finished, &app, &QCoreApplication::quit);
    app.exec();
    if (client.exitStatus() != QProcess::NormalExit || client.exitCode() != 0) {
        std::fprintf(stderr, "client failed (exit %d)\n", client.exitCode());
        return 1;
    }

    egressbench::Results results;
    results.add(egressbench::jsonLines(client.readAllStandardOutput()));
    std::printf("egress bench (component): %lld MiB download, %d small requests per mode and "
                "round\n",
                static_cast<long long>(args.bytes / (1024 * 1024)), args.requests);
    results.print(
        "direct",
        {{"direct", "direct"}, {"absolute-form", "absolute-form"}, {"connect", "connect"}},
        args.repeat);
    return 0;
}
