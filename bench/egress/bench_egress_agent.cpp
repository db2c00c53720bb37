// bench/egress (agent variant): the same 256 MiB download and small-request latency as
// bench_egress, but through the real agent: a Python client in a real strong sandbox (bwrap,
// Network seccomp profile) → runbox-egress-bridge → the agent's gateway (decisions recorded in
// SQLite) → the upstream on the host's loopback, against the same client run directly on the
// host, in one run. Targets: >= 0.5x throughput, <= 1 ms added p50 latency.
//
//   bench_egress_agent [--bytes N] [--requests N] [--repeat N]

#include "bench/egress/EgressBench.h"
#include "shared/ApiClient.h"
#include "support/AgentProcess.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QProcess>
#include <QTemporaryDir>

#include <cstdio>
#include <sys/stat.h>

using namespace runbox;
using namespace runbox::testsupport;

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const egressbench::Args args = egressbench::Args::parse(app.arguments());
    egressbench::UpstreamServer upstream(args.bytes);
    egressbench::SpliceForwarder forwarder(upstream.port());

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
                          {"REQUESTS", QString::number(args.requests)},
                          {"REPEAT", "1"}};
    QProcessEnvironment hostEnv = QProcessEnvironment::systemEnvironment();
    for (auto it = env.begin(); it != env.end(); ++it)
        hostEnv.insert(it.key(), it.value().toString());
    hostEnv.insert("MODES", "direct,forwarder");
    hostEnv.insert("FORWARDER_PORT", QString::number(forwarder.port()));
    QJsonObject sandboxEnv = env;
    sandboxEnv.insert("MODES", "absolute-form,connect");

    // Rounds interleave the baseline (the same client on the host, straight to the upstream)
    // and Runbox (a strong sandbox under the allowlist, through bridge + gateway), so that both
    // see the same load on a shared host.
    egressbench::Results results;
    for (int round = 0; round < args.repeat; ++round) {
        QProcess direct;
        direct.setProcessEnvironment(hostEnv);
        direct.start("/usr/bin/python3", {"-c", egressbench::kClient});
        direct.waitForFinished(600000);
        results.add(egressbench::jsonLines(direct.readAllStandardOutput()));

        const ExecOutcome run =
            agent.exec(ws,
                       QJsonObject{{"kind", "python"},
                                   {"code", QString::fromLatin1(egressbench::kClient)},
                                   {"env", sandboxEnv},
                                   {"executionTimeoutMs", 600000}},
                       600000);
        if (run.status() != QLatin1String("completed")) {
            std::fprintf(stderr, "sandboxed client: %s\n", qPrintable(run.describe()));
            return 1;
        }
        results.add(egressbench::jsonLines(run.stdoutBytes));
    }
    if (!results.has("direct") || !results.has("forwarder") || !results.has("absolute-form") ||
        !results.has("connect")) {
        std::fprintf(stderr, "missing results\n");
        return 1;
    }
    std::printf("egress bench through the agent: %lld MiB download, %d small requests per mode "
                "and round\n",
                static_cast<long long>(args.bytes / (1024 * 1024)), args.requests);
    results.print("direct",
                  {{"direct", "direct (host)"},
                   {"forwarder", "splice forwarder (host)"},
                   {"absolute-form", "absolute-form (sandbox)"},
                   {"connect", "connect (sandbox)"}},
                  args.repeat, {"forwarder"});
    std::printf("splice forwarder: a bare user-space TCP relay (reference, not judged): the floor "
                "for any design that relays bytes, as the gateway must\n");
    agent.stop();
    return 0;
}
