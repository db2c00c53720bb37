#include "agent/egress/EgressProbe.h"

#include "agent/egress/NetworkEpoch.h"

#include "agent/egress/NetworkPolicy.h"
#include "agent/execution/LaunchPlanner.h"
#include "agent/execution/strong/ExecutionRunner.h"

#include <QDir>
#include <QEventLoop>
#include <QJsonArray>
#include <QTimer>

#include <memory>

#include <QFile>
#include <unistd.h>

namespace runbox::egress {

void EgressProbe::run(const execution::LaunchPlanner& planner, const execution::SandboxHost& host,
                      const QString& scratchDir, std::function<void(bool, const QString&)> done) {
    if (!QDir().mkpath(scratchDir))
        return done(false, QStringLiteral("cannot create %1").arg(scratchDir));
    Error error;
    const std::optional<NetworkPolicy> policy =
        NetworkPolicy::fromJson(QJsonObject{{"mode", "domain-allowlist"},
                                            {"allowedDomains", QJsonArray{"egress-probe.invalid"}}},
                                &error);
    execution::LaunchContext context;
    context.executionId = QStringLiteral("egress-probe");
    context.workspaceDir = scratchDir;
    if (const auto user = host.probeUser()) {
        context.workspaceUid = user->uid;
        if (::chown(QFile::encodeName(scratchDir).constData(), user->uid, user->uid) != 0)
            return done(false,
                        QStringLiteral("cannot give %1 to uid %2").arg(scratchDir).arg(user->uid));
    }
    context.request.kind = QStringLiteral("argv");
    context.request.argv = QStringList{QStringLiteral("true")};
    NetworkEpoch::of(*policy).writeInto(&context.epoch);
    const quint64 maxProcesses = host.maxProcesses;
    planner.plan(context, [done, maxProcesses](std::optional<Error> err,
                                               std::shared_ptr<execution::LaunchPlan> plan) {
        if (err)
            return done(false, err->message);
        execution::ExecutionRunner::Options options;
        options.executionId = QStringLiteral("egress-probe");
        options.timeoutMs = 10000;
        options.maxProcesses = maxProcesses;
        options.beforeExitEvent = [plan] { plan->release(); };
        auto* runner = new execution::ExecutionRunner(plan->launch, options);
        QObject::connect(
            runner, &execution::ExecutionRunner::finished, runner,
            [runner, done](const execution::ExecutionResult& result) {
                runner->deleteLater();
                if (result.status == QLatin1String("completed"))
                    return done(true, QString());
                done(false, QStringLiteral("the egress probe sandbox ended %1: %2")
                                .arg(result.status,
                                     result.reason.isEmpty()
                                         ? QStringLiteral("exit status %1").arg(result.exitCode)
                                         : result.reason));
            });
        runner->start();
    });
}

void EgressProbe::runAndWait(const execution::LaunchPlanner& planner,
                             const execution::SandboxHost& host, const QString& scratchDir,
                             int timeoutMs, bool* works, QString* reason) {
    QEventLoop loop;
    auto finished = std::make_shared<bool>(false);
    *works = false;
    *reason = QStringLiteral("the egress probe did not finish within %1 ms").arg(timeoutMs);
    run(planner, host, scratchDir, [&, finished](bool ok, const QString& why) {
        if (*finished)
            return;
        *finished = true;
        *works = ok;
        *reason = why;
        loop.quit();
    });
    if (!*finished) {
        QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
        loop.exec();
    }
    *finished = true; // a late answer must not touch the locals of this returned frame
}

} // namespace runbox::egress
