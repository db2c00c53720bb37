// bench/tls_latency: strong sync exec latency of `true` over the agent's TLS listener against
// its plain HTTP listener, the same agent and workspace, interleaved in one run; p50/p90 of each
// and their ratio (target: TLS p50 <= 1.10 x plain p50 on kept-alive connections). A second
// table opens a fresh connection per exec (the TLS handshake included), for information.
//
// Usage: bench_tls_latency [--iterations N]
#include "shared/ApiClient.h"
#include "shared/TlsPin.h"
#include "support/AgentProcess.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>

#include <algorithm>
#include <memory>
#include <vector>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return v[size_t(p * double(v.size() - 1))];
}

/// One signed sync exec of `/bin/true` over @p client; its wall time in ms (fatal on failure).
double execMs(ApiClient& client, const QByteArray& path) {
    static const QByteArray body = QJsonDocument(QJsonObject{{"argv", QJsonArray{"/bin/true"}}})
                                       .toJson(QJsonDocument::Compact);
    QElapsedTimer t;
    t.start();
    const ApiResponse r = client.callRaw("POST", path, body, 60000);
    const double ms = double(t.nsecsElapsed()) / 1e6;
    if (!r.ok() || !r.body.contains("\"status\":\"completed\""))
        qFatal("exec failed: %d %s %s", r.status, qPrintable(r.errorMessage()), r.body.constData());
    return ms;
}

void printRow(QTextStream& out, const char* name, const std::vector<double>& v) {
    out << QStringLiteral("%1  p50 %2 ms  p90 %3 ms  (n=%4)\n")
               .arg(QLatin1String(name), -28)
               .arg(percentile(v, 0.5), 0, 'f', 2)
               .arg(percentile(v, 0.9), 0, 'f', 2)
               .arg(v.size());
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    int iterations = 100;
    const QStringList args = app.arguments();
    if (const qsizetype i = args.indexOf(QStringLiteral("--iterations"));
        i > 0 && i + 1 < args.size())
        iterations = std::max(4, args[i + 1].toInt());
    QTextStream out(stdout);

    AgentProcess agent;
    AgentOptions options;
    options.tls = true;
    if (!agent.start(options))
        qFatal("agent: %s", qPrintable(agent.errorString()));
    const QString workspace = agent.createWorkspace();
    if (workspace.isEmpty())
        qFatal("workspace: %s", qPrintable(agent.errorString()));
    const QByteArray path = "/v1/workspaces/" + workspace.toUtf8() + "/exec";
    // The pin, as a client gets it: from the agent's /v1/health over the plain loopback listener.
    const QString fingerprint = agent.client()
                                    ->call("GET", "/v1/health")
                                    .json()
                                    .value(QLatin1String("listeners"))
                                    .toObject()
                                    .value(QLatin1String("tls"))
                                    .toObject()
                                    .value(QLatin1String("fingerprint"))
                                    .toString();
    const QByteArray pin = tls::parseFingerprint(fingerprint).value_or(QByteArray());
    if (pin.isEmpty())
        qFatal("no TLS fingerprint in /v1/health");
    auto client = [&](bool tls) {
        auto c = std::make_unique<ApiClient>(tls ? agent.tlsUrl() : agent.baseUrl(), agent.token());
        c->setPinnedSha256(pin);
        return c;
    };

    // Kept-alive connections (one client each, as the CLI and the console hold them).
    auto plain = client(false);
    auto tls = client(true);
    for (int i = 0; i < 5; ++i) { // warm-up: connections, the handshake, caches
        execMs(*plain, path);
        execMs(*tls, path);
    }
    std::vector<double> plainMs, tlsMs;
    for (int i = 0; i < iterations; ++i) { // interleaved, alternating which goes first
        if (i % 2 == 0) {
            plainMs.push_back(execMs(*plain, path));
            tlsMs.push_back(execMs(*tls, path));
        } else {
            tlsMs.push_back(execMs(*tls, path));
            plainMs.push_back(execMs(*plain, path));
        }
    }
    // A fresh connection per exec (a new client each time: TCP, and for TLS the handshake).
    std::vector<double> plainFreshMs, tlsFreshMs;
    for (int i = 0; i < std::max(4, iterations / 4); ++i) {
        auto p = client(false);
        plainFreshMs.push_back(execMs(*p, path));
        auto t = client(true);
        tlsFreshMs.push_back(execMs(*t, path));
    }

    out << "strong sync exec of /bin/true, one agent, one workspace, interleaved\n";
    printRow(out, "plain HTTP, kept alive", plainMs);
    printRow(out, "TLS (pinned), kept alive", tlsMs);
    const double ratio = percentile(tlsMs, 0.5) / percentile(plainMs, 0.5);
    out << QStringLiteral("ratio TLS/plain p50 %1 (target <= 1.10): %2\n")
               .arg(ratio, 0, 'f', 3)
               .arg(ratio <= 1.10 ? QStringLiteral("met") : QStringLiteral("NOT met"));
    printRow(out, "plain HTTP, new connection", plainFreshMs);
    printRow(out, "TLS (pinned), new connection", tlsFreshMs);
    out << QStringLiteral("ratio TLS/plain p50, new connection %1 (no target)\n")
               .arg(percentile(tlsFreshMs, 0.5) / percentile(plainFreshMs, 0.5), 0, 'f', 3);
    out.flush();
    agent.stop();
    return 0;
}
