// bench/environments: science environments (docs/environments.md), two figures from one run:
// 1. strong exec latency of `python3 -c pass` with an environment mounted vs the host's python3
//    without one, interleaved, same agent (target: within 10 %);
// 2. building a revision of a wheelhouse of N wheels through the agent vs `python3 -m venv
//    --copies` + `pip install --no-index --find-links` + `pip list` of the same wheels on the
//    host (target: ≤ 1.3×).
//
// Usage: bench_environments [--wheels N] (default 50) [--execs N] (default 30)
#include "support/AgentProcess.h"
#include "support/ManagedApi.h"
#include "support/Wheelhouse.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QProcess>
#include <QTemporaryDir>
#include <QTextStream>

#include <algorithm>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

int optionValue(const QStringList& args, const char* name, int fallback) {
    const qsizetype at = args.indexOf(QLatin1String(name));
    return at > 0 && at + 1 < args.size() ? args.at(at + 1).toInt() : fallback;
}

double median(QList<double> v) {
    std::sort(v.begin(), v.end());
    return v.isEmpty() ? 0 : v.at(v.size() / 2);
}

/// ms of one managed build of @p packages into @p envId (fatal unless it completes).
double timeBuild(ApiClient& client, const QString& envId, const QStringList& packages) {
    QElapsedTimer t;
    t.start();
    const ApiResponse r =
        client.call("POST", "/v1/environments/" + envId.toUtf8() + "/install",
                    QJsonObject{{"packages", QJsonArray::fromStringList(packages)}});
    if (r.status != 202)
        qFatal("install: %d %s", r.status, r.body.constData());
    const QJsonObject record =
        waitUntilFinal(client, r.json().value("executionId").toString(), 600000);
    if (record.value("state").toString() != QLatin1String("completed"))
        qFatal("build ended %s", qPrintable(record.value("state").toString()));
    return double(t.elapsed());
}

/// ms of the same build on the host, outside any sandbox.
double timePlainBuild(const QString& wheelhouse, const QStringList& packages) {
    QTemporaryDir dir;
    const QString venv = dir.filePath("venv");
    const QString script =
        QStringLiteral("python3 -m venv --copies %1 && %1/bin/python3 -m pip install -q --no-index "
                       "--find-links %2 --no-cache-dir --disable-pip-version-check -- \"$@\" && "
                       "%1/bin/python3 -m pip list --format json > /dev/null")
            .arg(venv, wheelhouse);
    QElapsedTimer t;
    t.start();
    QProcess p;
    p.start("/bin/sh", QStringList{"-c", script, "sh"} + packages);
    if (!p.waitForFinished(600000) || p.exitCode() != 0)
        qFatal("plain build failed: %s", p.readAllStandardError().constData());
    return double(t.elapsed());
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const int wheels = optionValue(args, "--wheels", 50);
    const int execs = optionValue(args, "--execs", 30);
    QTextStream out(stdout);

    QTemporaryDir wheelhouse;
    QFile::setPermissions(wheelhouse.path(), QFile::ReadOwner | QFile::WriteOwner |
                                                 QFile::ExeOwner | QFile::ReadGroup |
                                                 QFile::ExeGroup | QFile::ReadOther |
                                                 QFile::ExeOther);
    QStringList packages;
    for (int i = 0; i < wheels; ++i) {
        const QString name = QStringLiteral("bench%1").arg(i);
        if (!writeWheel(wheelhouse.path(), name, "1.0", QStringLiteral("N = %1").arg(i)))
            qFatal("cannot write wheel %s", qPrintable(name));
        packages << name;
    }
    AgentProcess agent;
    AgentOptions options;
    options.extraEnv.insert("RUNBOX_ENV_WHEELHOUSE", wheelhouse.path());
    if (!agent.start(options))
        qFatal("agent: %s", qPrintable(agent.errorString()));
    ApiClient& client = *agent.client();
    const ApiResponse created = client.call("POST", "/v1/environments",
                                            QJsonObject{{"name", "bench"}, {"language", "python"}});
    if (created.status != 201)
        qFatal("create: %d %s", created.status, created.body.constData());
    const QString envId = created.json().value("id").toString();
    waitUntilFinal(client, created.json().value("executionId").toString(), 600000);

    // 2 first (it also makes the revision the latency runs use), interleaved twice.
    QList<double> agentMs, plainMs;
    for (int round = 0; round < 2; ++round) {
        plainMs << timePlainBuild(wheelhouse.path(), packages);
        agentMs << timeBuild(client, envId, packages);
    }
    // 1: interleaved, one warm-up of each first.
    const QString ws = agent.createWorkspace();
    const QJsonObject plainBody{{"kind", "shell"}, {"code", "python3 -c pass"}};
    QJsonObject envBody = plainBody;
    envBody.insert("environmentId", envId);
    QList<double> withoutMs, withMs;
    for (int i = -1; i < execs; ++i) {
        for (const bool withEnv : {false, true}) {
            QElapsedTimer t;
            t.start();
            const ExecOutcome o = agent.exec(ws, withEnv ? envBody : plainBody);
            if (o.status() != QLatin1String("completed"))
                qFatal("exec: %s %s", qPrintable(o.status()), o.errorBody.constData());
            if (i >= 0)
                (withEnv ? withMs : withoutMs) << double(t.elapsed());
        }
    }
    const double without = median(withoutMs), with = median(withMs);
    const double plain = median(plainMs), built = median(agentMs);
    out << QStringLiteral("environments: %1 wheels, %2 execs each way (medians, same run)\n")
               .arg(wheels)
               .arg(execs);
    out << QStringLiteral("  exec python3 -c pass, host python3     %1 ms\n")
               .arg(without, 0, 'f', 1);
    out << QStringLiteral("  exec python3 -c pass, environment      %1 ms  (%2x, target <= 1.10)\n")
               .arg(with, 0, 'f', 1)
               .arg(with / without, 0, 'f', 3);
    out << QStringLiteral("  build, plain venv + pip on the host    %1 ms\n").arg(plain, 0, 'f', 0);
    out << QStringLiteral("  build, a revision through the agent    %1 ms  (%2x, target <= 1.30)\n")
               .arg(built, 0, 'f', 0)
               .arg(built / plain, 0, 'f', 3);
    agent.stop();
    return 0;
}
