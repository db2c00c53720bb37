// bench/egress (agent variant): the same 256 MiB download and small-request latency as
// bench_egress, but through the real agent: a Python client in a real strong sandbox (bwrap,
// Network seccomp profile) → runbox-egress-bridge → the agent's gateway (decisions recorded in
// SQLite) → the upstream on the host's loopback, against the same client run directly on the
// host, in one run. Targets (issue 4): >= 0.5x throughput, <= 1 ms added p50 latency.
//
//   bench_egress_agent [--bytes N] [--requests N] [--repeat N]

#include "bench/egress/UpstreamServer.h"
#include "bench/egress/bench_clients.h"
#include "shared/ApiClient.h"
#include "support/AgentProcess.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>

#include <cstdio>
#include <sys/stat.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

QList<QJsonObject> jsonLines(const QByteArray& text) {
    QList<QJsonObject> out;
    for (const QByteArray& line : text.split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (!o.isEmpty())
            out.append(o);
    }
    return out;
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
    UpstreamServer upstream(bytes);

    // The agent resolves mirror.test to the host's 127.0.0.1 (test resolver; see
    // HostsFileResolver) and the policy admits it through allowPrivateCidrs.
    QTemporaryDir hostsDir;
    const QString hosts = hostsDir.filePath("hosts");
    QFile file(hosts);
    if (!file.open(QIODevice::WriteOnly))
        return 2;
    file.write("mirror.test 127.0.0.1\n");
    file.close();
    ::chmod(QFile::encodeName(hostsDir.path()).constData(), 0755);
    ::chmod(QFile::encodeName(hosts).constData(), 0644);
    AgentProcess agent;
    AgentOptions options;
    options.extraEnv.insert("RUNBOX_TEST_RESOLVER_HOSTS", hosts);
    if (!agent.start(options)) {
        std::fprintf(stderr, "agent: %s\n", qPrintable(agent.errorString()));
        return 2;
    }
    const ApiResponse policy =
        agent.client()->call("PUT", "/v1/settings/network-policy",
                             QJsonObject{{"mode", "domain-allowlist"},
                                         {"allowedDomains", QJsonArray{"mirror.test"}},
                                         {"allowPrivateCidrs", QJsonArray{"127.0.0.0/8"}}});
    const QString ws = agent.createWorkspace();
    if (policy.status != 200 || ws.isEmpty()) {
        std::fprintf(stderr, "set-up failed: %s %s\n", policy.body.constData(),
                     qPrintable(agent.errorString()));
        return 2;
    }
    const QJsonObject env{{"UPSTREAM_PORT", QString::number(upstream.port())},
                          {"REQUESTS", QString::number(requests)},
                          {"REPEAT", QString::number(repeat)}};

    // Baseline: the same client on the host, straight to the upstream.
    QProcess direct;
    QProcessEnvironment hostEnv = QProcessEnvironment::systemEnvironment();
    for (auto it = env.begin(); it != env.end(); ++it)
        hostEnv.insert(it.key(), it.value().toString());
    hostEnv.insert("MODES", "direct");
    direct.setProcessEnvironment(hostEnv);
    direct.start("/usr/bin/python3", {"-c", kBenchClient});
    direct.waitForFinished(600000);
    QList<QJsonObject> results = jsonLines(direct.readAllStandardOutput());

    // Runbox: a strong sandbox under the allowlist, through bridge + gateway.
    QJsonObject sandboxEnv = env;
    sandboxEnv.insert("MODES", "absolute-form,connect");
    const ExecOutcome run = agent.exec(ws,
                                       QJsonObject{{"kind", "python"},
                                                   {"code", QString::fromLatin1(kBenchClient)},
                                                   {"env", sandboxEnv},
                                                   {"executionTimeoutMs", 600000}},
                                       600000);
    if (run.status() != QLatin1String("completed")) {
        std::fprintf(stderr, "sandboxed client: %s\n", qPrintable(run.describe()));
        return 1;
    }
    results += jsonLines(run.stdoutBytes);
    QHash<QString, QJsonObject> byMode;
    for (const QJsonObject& o : std::as_const(results))
        byMode.insert(o.value("mode").toString(), o);
    if (byMode.size() != 3) {
        std::fprintf(stderr, "missing results\n");
        return 1;
    }
    const auto mibPerSecond = [](const QJsonObject& o) {
        return o.value("bytes").toDouble() / (1024.0 * 1024.0) / o.value("seconds").toDouble();
    };
    const QJsonObject base = byMode.value("direct");
    std::printf("egress bench through the agent: %lld MiB download (best of %d), %d small "
                "requests per mode\n",
                static_cast<long long>(bytes / (1024 * 1024)), repeat, requests);
    std::printf("%-24s %10s %8s %9s %9s %12s\n", "mode", "MiB/s", "ratio", "p50 ms", "p99 ms",
                "added p50 ms");
    bool targetsMet = true;
    for (const char* mode : {"direct", "absolute-form", "connect"}) {
        const QJsonObject o = byMode.value(mode);
        const double ratio = mibPerSecond(o) / mibPerSecond(base);
        const double added = o.value("p50_ms").toDouble() - base.value("p50_ms").toDouble();
        const QString label = QLatin1String(mode) == QLatin1String("direct")
                                  ? QStringLiteral("direct (host)")
                                  : QStringLiteral("%1 (sandbox)").arg(QLatin1String(mode));
        std::printf("%-24s %10.1f %8.2f %9.3f %9.3f %12.3f\n", qPrintable(label), mibPerSecond(o),
                    ratio, o.value("p50_ms").toDouble(), o.value("p99_ms").toDouble(), added);
        if (QLatin1String(mode) != QLatin1String("direct"))
            targetsMet = targetsMet && ratio >= 0.5 && added <= 1.0;
    }
    std::printf("targets (>= 0.5x throughput, <= 1 ms added p50): %s\n",
                targetsMet ? "met" : "NOT met");
    agent.stop();
    return 0;
}
