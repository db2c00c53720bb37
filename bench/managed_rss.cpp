// bench/managed_rss: the agent's resident memory (VmRSS) idle against while N managed
// executions run `sleep` in N workspaces (maxConcurrentExecutions raised above N), in one run
// (target: under 1 MiB per execution above idle).
//
// Usage: bench_managed_rss [--executions N] (default 100) [--sleep S] (default 30)
#include "support/AgentProcess.h"
#include "support/ManagedApi.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QJsonArray>
#include <QTest>
#include <QTextStream>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

int optionValue(const QStringList& args, const char* name, int fallback) {
    const qsizetype at = args.indexOf(QLatin1String(name));
    return at > 0 && at + 1 < args.size() ? args.at(at + 1).toInt() : fallback;
}

int countInState(ApiClient& client, const QStringList& ids, const char* state) {
    int n = 0;
    for (const QString& id : ids)
        n += executionRecord(client, id).value(QLatin1String("state")).toString() ==
             QLatin1String(state);
    return n;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const int executions = optionValue(args, "--executions", 100);
    const int sleepSeconds = optionValue(args, "--sleep", 30);
    QTextStream out(stdout);

    AgentProcess agent;
    AgentOptions options;
    options.extraEnv.insert(QStringLiteral("RUNBOX_MAX_CONCURRENT_EXECUTIONS"),
                            QString::number(executions + 10));
    if (!agent.start(options))
        qFatal("agent: %s", qPrintable(agent.errorString()));
    ApiClient& client = *agent.client();

    // The workspaces exist before the idle figure: what is measured is the executions' cost.
    QStringList workspaces;
    for (int i = 0; i < executions; ++i)
        workspaces << agent.createWorkspace();
    // One execution first, so that one-time set-up of the execution path counts as idle.
    const QString warm =
        submitExecution(client, workspaces.first(), {{"argv", QJsonArray{"/usr/bin/true"}}})
            .json()
            .value(QLatin1String("executionId"))
            .toString();
    waitUntilFinal(client, warm);
    QTest::qWait(1000);
    const qint64 idleKiB = agent.rssKiB();

    QStringList ids;
    for (const QString& ws : workspaces) {
        const ApiResponse r = submitExecution(
            client, ws, {{"argv", QJsonArray{"/usr/bin/sleep", QString::number(sleepSeconds)}}});
        if (r.status != 202)
            qFatal("submit: %d %s", r.status, r.body.constData());
        ids << r.json().value(QLatin1String("executionId")).toString();
    }
    QDeadlineTimer deadline(qint64(sleepSeconds) * 1000 / 2);
    int running = 0;
    while ((running = countInState(client, ids, "running")) < executions && !deadline.hasExpired())
        QTest::qWait(200);
    QTest::qWait(1000);
    const qint64 busyKiB = agent.rssKiB();
    const int stillRunning = countInState(client, ids, "running");

    const double perExecutionKiB = double(busyKiB - idleKiB) / executions;
    out << QStringLiteral("managed_rss: %1 managed executions of `sleep %2` in %1 workspaces\n")
               .arg(executions)
               .arg(sleepSeconds);
    out << QStringLiteral("  agent VmRSS idle       %1 KiB\n").arg(idleKiB);
    out << QStringLiteral("  agent VmRSS running    %1 KiB  (%2 of %3 running when measured)\n")
               .arg(busyKiB)
               .arg(stillRunning)
               .arg(executions);
    out << QStringLiteral("  per execution          %1 KiB above idle  (%2x the 1024 KiB target)\n")
               .arg(perExecutionKiB, 0, 'f', 1)
               .arg(perExecutionKiB / 1024.0, 0, 'f', 3);
    for (const QString& id : ids)
        client.call("POST", "/v1/executions/" + id.toUtf8() + "/cancel");
    agent.stop();
    return stillRunning == executions ? 0 : 1;
}
