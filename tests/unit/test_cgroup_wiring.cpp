// The cgroup v2 path wired end to end over a fake delegated tree (docs/bounds.md): BoundsHost
// picks it, BoundsStage gives a strong launch its execution cgroup with the epoch's limits
// (memory.max, pids.max, cpu.max) and the cgroup.procs descriptor the spawn child joins,
// BoundedBackend ends a run as memory_exceeded when the cgroup's memory.events counts an OOM kill
// and takes its peaks, and BoundedTier refuses a CPU limit where cpu.max cannot hold it (no cpu
// controller, or a tier whose runs never enter an execution cgroup). The real kernel path is
// test_execution_cgroup's testRealDelegatedSubtree…, which runs only where a host delegates.
#include "FakeCgroupTree.h"
#include "agent/bounds/BoundsHost.h"
#include "agent/execution/BoundedBackend.h"
#include "agent/execution/BoundedTier.h"
#include "agent/execution/BoundsStage.h"
#include "agent/http/ErrorStatus.h"
#include "agent/workspace/WorkspaceRegistry.h"

#include <QSignalSpy>
#include <QtTest>

using namespace runbox;
using namespace runbox::execution;
using runbox::testsupport::FakeCgroupTree;

namespace {

constexpr qint64 kMiB = 1 << 20;

/// A backend that runs nothing: stop() ends it with the stop's status.
class IdleBackend final : public ExecutionBackend {
public:
    void start() override {}
    void stop(const QString& status, const QString& reason) override {
        ExecutionResult r;
        r.status = status;
        r.reason = reason;
        Q_EMIT finished(r);
    }
    void setPaused(bool) override {}
};

/// A tier that admits everything; whether its runs enter an execution cgroup is the test's.
class FakeTier final : public IsolationTier {
public:
    explicit FakeTier(bool inCgroup) : m_inCgroup(inCgroup) {}
    QString name() const override { return m_inCgroup ? "strong" : "light"; }
    TierAdmission admission(const QString& id, const QString&) const override { return {id}; }
    std::optional<Error> validate(const ExecRequest&, const workspace::Workspace&) override {
        return std::nullopt;
    }
    bool runsInExecutionCgroup() const override { return m_inCgroup; }
    void createBackend(const TierLaunch&, QObject* parent, BackendReady ready) override {
        TierBackend made;
        made.backend = new IdleBackend;
        made.backend->setParent(parent);
        ready(std::move(made));
    }

private:
    bool m_inCgroup;
};

bounds::BoundsHost::Options optionsFor(const FakeCgroupTree& tree) {
    bounds::BoundsHost::Options options;
    options.cgroupPaths = tree.paths();
    options.cgroupOps = testsupport::fakeCgroupOps();
    return options;
}

std::optional<Error> validateCpu(bounds::BoundsHost* host, bool tierInCgroup, qint64 cpu) {
    BoundedTier tier(std::make_unique<FakeTier>(tierInCgroup), host);
    ExecRequest request;
    store::ExecutionLimits limits;
    limits.maxCpuMillicores = cpu;
    request.bounds = limits;
    workspace::Workspace ws;
    return tier.validate(request, ws);
}

} // namespace

class TestCgroupWiring final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testStrongLaunchGetsItsCgroupWithTheEpochsLimits() {
        FakeCgroupTree tree;
        bounds::BoundsHost host(optionsFor(tree));
        QCOMPARE(host.mode(), bounds::BoundsHost::Mode::Cgroup2);
        QVERIFY(host.enforcesCpu());
        QCOMPARE(host.cpuJson().value("mode").toString(), QStringLiteral("cgroup2"));

        LaunchContext context;
        context.executionId = QStringLiteral("ex1");
        context.epoch.quotas = QJsonObject{{"maxMemoryBytes", 512 * kMiB},
                                           {"maxProcesses", 100},
                                           {"maxCpuMillicores", 1500},
                                           {"maxWorkspaceBytes", kMiB}};
        LaunchPlan plan;
        std::optional<Error> result = Error{ErrorKind::Internal, "not_called", ""};
        BoundsStage(&host).prepare(context, &plan,
                                   [&](std::optional<Error> e) { result = std::move(e); });
        QVERIFY2(!result, result ? qPrintable(result->message) : "");
        QVERIFY(plan.cgroupProcsFd >= 0);
        QCOMPARE(plan.spec.tmpfsBytes, 512 * kMiB);
        QCOMPARE(plan.maxFileBytes, kMiB);
        const QString dir = tree.service + QStringLiteral("/runbox-ex-ex1");
        QCOMPARE(FakeCgroupTree::read(dir + "/memory.max"), QByteArray::number(512 * kMiB));
        QCOMPARE(FakeCgroupTree::read(dir + "/memory.swap.max"), QByteArray("0"));
        QCOMPARE(FakeCgroupTree::read(dir + "/pids.max"), QByteArray("100"));
        QCOMPARE(FakeCgroupTree::read(dir + "/cpu.max"), QByteArray("150000 100000"));

        // The run takes it; the plan's release then closes the fd and leaves the cgroup alone.
        std::unique_ptr<bounds::ExecutionCgroup> cgroup = host.takeCgroup(context.executionId);
        QVERIFY(cgroup);
        plan.release();
        QVERIFY(QFile::exists(dir + "/memory.max"));
    }

    void testUnlimitedCpuLeavesCpuMaxAlone() {
        FakeCgroupTree tree;
        bounds::BoundsHost host(optionsFor(tree));
        LaunchContext context;
        context.executionId = QStringLiteral("ex2");
        context.epoch.quotas = QJsonObject{{"maxMemoryBytes", 512 * kMiB}};
        LaunchPlan plan;
        BoundsStage(&host).prepare(context, &plan, [](std::optional<Error> e) { QVERIFY(!e); });
        QCOMPARE(FakeCgroupTree::read(tree.service + "/runbox-ex-ex2/cpu.max"), QByteArray(""));
        plan.release(); // not taken: the host drops it
        QVERIFY(!QFile::exists(tree.service + "/runbox-ex-ex2"));
    }

    void testAnOomKillInTheCgroupEndsTheRunMemoryExceeded() {
        FakeCgroupTree tree;
        bounds::BoundsHost host(optionsFor(tree));
        QString error;
        QVERIFY(host.createCgroup(QStringLiteral("ex3"), {}, &error));
        BoundedBackend::Watch watch;
        watch.limits.maxMemoryBytes = 512 * kMiB;
        watch.cgroup = host.takeCgroup(QStringLiteral("ex3"));
        const QString dir = watch.cgroup->directory();
        BoundedBackend backend(new IdleBackend, &host, std::move(watch));
        QSignalSpy finished(&backend, &ExecutionBackend::finished);
        backend.start();
        QVERIFY(!finished.wait(300)); // positive control: no OOM kill counted, it runs on
        FakeCgroupTree::write(dir + "/memory.peak", QByteArray::number(513 * kMiB));
        FakeCgroupTree::write(dir + "/memory.events", "low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n");
        QVERIFY(finished.wait(3000));
        const auto result = finished.first().first().value<ExecutionResult>();
        QCOMPARE(result.status, QStringLiteral("memory_exceeded"));
        QCOMPARE(result.usage.peakMemoryBytes, 513 * kMiB);
    }

    void testCpuLimitIsRefusedWhereCpuMaxCannotHoldIt() {
        FakeCgroupTree withCpu;
        bounds::BoundsHost cgroupHost(optionsFor(withCpu));
        QVERIFY(!validateCpu(&cgroupHost, true, 1500)); // positive control: strong, cpu.max
        QVERIFY(!validateCpu(&cgroupHost, false, 0));   // no limit: nothing to enforce
        const auto light = validateCpu(&cgroupHost, false, 1500);
        QVERIFY(light);
        QCOMPARE(runbox::http::httpStatus(light->kind), 503);
        QCOMPARE(light->code, QStringLiteral("limit_unenforceable"));

        FakeCgroupTree noCpu("memory pids");
        bounds::BoundsHost memoryOnly(optionsFor(noCpu));
        QCOMPARE(memoryOnly.mode(), bounds::BoundsHost::Mode::Cgroup2);
        QVERIFY(!memoryOnly.enforcesCpu());
        const auto strong = validateCpu(&memoryOnly, true, 1500);
        QVERIFY(strong);
        QCOMPARE(strong->code, QStringLiteral("limit_unenforceable"));
        QVERIFY(strong->message.contains(QStringLiteral("no cpu controller")));

        bounds::BoundsHost::Options watchdogOnly;
        watchdogOnly.useCgroups = false;
        bounds::BoundsHost watchdogHost(watchdogOnly);
        QCOMPARE(watchdogHost.cpuJson().value("mode").toString(), QStringLiteral("none"));
        QVERIFY(validateCpu(&watchdogHost, true, 1500));
    }
};

QTEST_GUILESS_MAIN(TestCgroupWiring)
#include "test_cgroup_wiring.moc"
