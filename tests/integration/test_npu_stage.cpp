// NpuStage in the launch pipeline (LaunchPlanner), with a real NpuService: an execution without
// chips gets a byte-for-byte unchanged launch; with chips the passthrough lands right after
// `--dev /dev`, the environment and the Npu seccomp profile are set, and the chips are held
// until the plan is released; queued waiters can be abandoned; the refusal policy refuses.
// The parts that probe chips need root (mknod) and bwrap; they skip otherwise.
#include "agent/execution/LaunchPlanner.h"
#include "agent/npu/NpuService.h"
#include "agent/npu/NpuStage.h"
#include "agent/sandbox/SandboxIdentity.h"
#include "support/LaunchFds.h"
#include "support/SimulatedNpuHost.h"

#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

using namespace runbox;
using namespace runbox::npu;
using runbox::tests::SimulatedNpuHost;

namespace {

struct Planned {
    bool done = false;
    std::optional<Error> error;
    std::shared_ptr<execution::LaunchPlan> plan;
};

} // namespace

class TestNpuStage final : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_state;
    execution::SandboxHost m_host;
    std::unique_ptr<SimulatedNpuHost> m_npuHost;

    NpuConfig config(ChipBusyPolicy policy = ChipBusyPolicy::Queue) const {
        NpuConfig c;
        if (m_npuHost) {
            c.deviceRoot = m_npuHost->deviceRoot();
            c.npuSmiPath = m_npuHost->npuSmiPath();
            c.installInfoPath = m_npuHost->installInfoPath();
            c.probeBinds = {m_npuHost->stateDir()};
        } else {
            c.deviceRoot = QStringLiteral("/nonexistent/dev");
            c.npuSmiPath = QStringLiteral("/nonexistent/npu-smi");
        }
        c.driverPath = QStringLiteral("/nonexistent/driver");
        c.toolkitPath = QStringLiteral("/nonexistent/toolkit");
        c.dcmiLibraryPaths = {QStringLiteral("/nonexistent/libdcmi.so")};
        c.busyPolicy = policy;
        c.probeTimeoutMs = 20000;
        return c;
    }
    std::unique_ptr<NpuService> service(ChipBusyPolicy policy = ChipBusyPolicy::Queue) const {
        const NpuConfig c = config(policy);
        return std::make_unique<NpuService>(c, NpuService::probeOptionsFor(m_host, c));
    }
    static execution::LaunchContext context(const QString& id, const QList<int>& chips) {
        execution::LaunchContext ctx;
        ctx.executionId = id;
        ctx.workspaceId = QStringLiteral("w0123456789abcdef");
        ctx.workspaceDir = QStringLiteral("/srv/runbox/workspaces/w0123456789abcdef");
        ctx.request.kind = QStringLiteral("shell");
        ctx.request.code = QStringLiteral("true");
        ctx.request.env = {{QStringLiteral("PYTHONPATH"), QStringLiteral("/workspace/lib")}};
        NpuStage::setChips(&ctx.request, chips);
        NpuStage::recordInto(ctx.request, &ctx.epoch);
        return ctx;
    }
    static std::shared_ptr<Planned> plan(const execution::LaunchPlanner& planner,
                                         const execution::LaunchContext& ctx) {
        auto out = std::make_shared<Planned>();
        planner.plan(ctx,
                     [out](std::optional<Error> err, std::shared_ptr<execution::LaunchPlan> p) {
                         out->done = true;
                         out->error = err;
                         out->plan = p;
                     });
        return out;
    }
    bool canProbe() const { return m_npuHost != nullptr; }

private Q_SLOTS:
    void initTestCase() {
        m_host.capability.usable = true;
        m_host.capability.bwrapPath = QStandardPaths::findExecutable(QStringLiteral("bwrap"));
        if (m_host.capability.bwrapPath.isEmpty())
            m_host.capability.bwrapPath = QStringLiteral("/usr/bin/bwrap");
        m_host.stateDir = m_state.path();
        for (auto kind : {sandbox::SeccompProfileKind::Baseline, sandbox::SeccompProfileKind::Npu})
            m_host.seccompPaths.insert(kind, m_state.filePath(sandbox::toString(kind) + ".bpf"));
        if (::geteuid() == 0 && !QStandardPaths::findExecutable("bwrap").isEmpty()) {
            m_npuHost = std::make_unique<SimulatedNpuHost>(8);
            QVERIFY2(m_npuHost->isValid(), qPrintable(m_npuHost->error()));
        }
    }

    void testProbeBaseArgsAreTheRealLaunchUpToDev() {
        const NpuConfig c = config();
        const ChipProbeOptions options = NpuService::probeOptionsFor(m_host, c);
        execution::LaunchPlanner planner(&m_host);
        const auto planned = plan(planner, context(QStringLiteral("e0"), {}));
        QVERIFY(planned->done && !planned->error);
        const QStringList launch = planned->plan->launch.arguments;
        QVERIFY(options.baseArgs.size() > 2);
        QCOMPARE(options.baseArgs.mid(options.baseArgs.size() - 2), QStringList({"--dev", "/dev"}));
        QCOMPARE(launch.mid(0, options.baseArgs.size()), options.baseArgs);
        QCOMPARE(options.bwrapPath, m_host.capability.bwrapPath);
    }

    void testNoChipsGiveAByteForByteUnchangedLaunch() {
        auto npu = service();
        NpuStage stage(npu.get());
        execution::LaunchPlanner without(&m_host);
        execution::LaunchPlanner with(&m_host);
        with.addStage(&stage);
        const auto a = plan(without, context(QStringLiteral("e1"), {}));
        const auto b = plan(with, context(QStringLiteral("e1"), {}));
        QVERIFY(a->done && b->done && !a->error && !b->error);
        QCOMPARE(b->plan->launch.arguments, a->plan->launch.arguments);
        QCOMPARE(b->plan->launch.sandboxEnvironment, a->plan->launch.sandboxEnvironment);
        QCOMPARE(b->plan->launch.environment, a->plan->launch.environment);
        QCOMPARE(b->plan->launch.fds.size(), a->plan->launch.fds.size());
        QCOMPARE(testsupport::fdPath(b->plan->launch, sandbox::LaunchFd::kSeccomp),
                 testsupport::fdPath(a->plan->launch, sandbox::LaunchFd::kSeccomp));
        QVERIFY(b->plan->seccompProfile == sandbox::SeccompProfileKind::Baseline);
        QVERIFY(b->plan->releases.empty());
        QVERIFY(npu->reservations()->heldChips().isEmpty());
    }

    void testRefusalPolicyRefusesABusyChip() {
        auto npu = service(ChipBusyPolicy::Refuse);
        NpuStage stage(npu.get());
        execution::LaunchPlanner planner(&m_host);
        planner.addStage(&stage);
        QCOMPARE(npu->reservations()->acquire(QStringLiteral("other"), {2}).outcome,
                 ChipReservations::Outcome::Granted);
        QVERIFY(npu->checkBusy({2, 3}).has_value());
        QVERIFY(!npu->checkBusy({3}).has_value());
        const auto planned = plan(planner, context(QStringLiteral("e2"), {2, 3}));
        QVERIFY(planned->done);
        QVERIFY(planned->error.has_value());
        QCOMPARE(planned->error->code, QStringLiteral("chip_busy"));
        QCOMPARE(planned->error->message, QStringLiteral("NPU 2 is in use by another execution"));
        QCOMPARE(npu->reservations()->holders().value(3), QString()); // nothing half-taken
    }

    void testAbandonedWaiterLeavesTheQueue() {
        auto npu = service();
        NpuStage stage(npu.get());
        execution::LaunchPlanner planner(&m_host);
        planner.addStage(&stage);
        QCOMPARE(npu->reservations()->acquire(QStringLiteral("other"), {4}).outcome,
                 ChipReservations::Outcome::Granted);
        const auto planned = plan(planner, context(QStringLiteral("e3"), {4}));
        QVERIFY(!planned->done);
        QCOMPARE(npu->reservations()->waiting(), QStringList{NpuStage::holderOf("e3")});
        QCOMPARE(stage.pendingCount(), 1);
        planner.abandon(QStringLiteral("e3"));
        QVERIFY(npu->reservations()->waiting().isEmpty());
        QCOMPARE(stage.pendingCount(), 0);
        npu->reservations()->release(QStringLiteral("other"));
        QTest::qWait(0);
        QVERIFY(!planned->done); // done() is never called for an abandoned plan
        QVERIFY(npu->reservations()->heldChips().isEmpty());
    }

    void testChipsArePassedThroughAfterDevAndHeldUntilRelease() {
        if (!canProbe())
            QSKIP("needs root (mknod) and bwrap");
        auto npu = service();
        NpuStage stage(npu.get());
        execution::LaunchPlanner without(&m_host);
        execution::LaunchPlanner with(&m_host);
        with.addStage(&stage);
        const auto base = plan(without, context(QStringLiteral("e4"), {}));
        const auto planned = plan(with, context(QStringLiteral("e4"), {5, 2}));
        QTRY_VERIFY_WITH_TIMEOUT(planned->done, 30000);
        QVERIFY2(!planned->error, qPrintable(planned->error ? planned->error->message : ""));
        QCOMPARE(npu->reservations()->holders().value(2), NpuStage::holderOf("e4"));
        QCOMPARE(npu->reservations()->holders().value(5), NpuStage::holderOf("e4"));

        const QStringList args = planned->plan->launch.arguments;
        const QStringList plain = base->plan->launch.arguments;
        const qsizetype dev = plain.indexOf(QStringLiteral("--dev")) + 2;
        QCOMPARE(args.mid(0, dev), plain.mid(0, dev));
        const QString root = m_npuHost->deviceRoot();
        QCOMPARE(args.mid(dev, 6),
                 QStringList({"--dev-bind", root + "/davinci2", "/dev/davinci0", "--dev-bind",
                              root + "/davinci5", "/dev/davinci1"}));
        const qsizetype tmpfs = args.indexOf(QStringLiteral("--tmpfs"));
        QCOMPARE(args.mid(dev + 6, tmpfs - dev - 6),
                 QStringList({"--dev-bind", root + "/davinci_manager", "/dev/davinci_manager",
                              "--dev-bind", root + "/devmm_svm", "/dev/devmm_svm", "--dev-bind",
                              root + "/hisi_hdc", "/dev/hisi_hdc", "--ro-bind",
                              m_npuHost->installInfoPath(), "/etc/ascend_install.info"}));
        // Everything after the fragment up to the environment is the plain launch's.
        auto middle = [](const QStringList& a) {
            const qsizetype from = a.indexOf(QStringLiteral("--tmpfs"));
            return a.mid(from, a.indexOf(QStringLiteral("--clearenv")) - from);
        };
        QCOMPARE(middle(args), middle(plain));
        const QMap<QString, QString> env = planned->plan->launch.sandboxEnvironment;
        QCOMPARE(env.value("ASCEND_VISIBLE_DEVICES"), QStringLiteral("0,1"));
        QCOMPARE(env.value("ASCEND_RT_VISIBLE_DEVICES"), QStringLiteral("0,1"));
        QVERIFY(env.value("LD_LIBRARY_PATH").startsWith("/nonexistent/driver/lib64/common:"));
        QVERIFY(env.value("PYTHONPATH").startsWith("/workspace/lib:")); // the user's comes first
        QCOMPARE(env.value("PATH").split(':').value(0), QStringLiteral("/usr/local/bin"));
        QVERIFY(planned->plan->seccompProfile == sandbox::SeccompProfileKind::Npu);
        QCOMPARE(testsupport::fdPath(planned->plan->launch, sandbox::LaunchFd::kSeccomp),
                 m_host.seccompPaths.value(sandbox::SeccompProfileKind::Npu));

        planned->plan->release();
        QVERIFY(npu->reservations()->heldChips().isEmpty());
    }

    void testWaiterIsProbedAndLaunchedOnceTheChipIsFree() {
        if (!canProbe())
            QSKIP("needs root (mknod) and bwrap");
        auto npu = service();
        NpuStage stage(npu.get());
        execution::LaunchPlanner planner(&m_host);
        planner.addStage(&stage);
        const auto first = plan(planner, context(QStringLiteral("e5"), {1}));
        QTRY_VERIFY_WITH_TIMEOUT(first->done, 30000);
        QVERIFY(!first->error);
        const auto second = plan(planner, context(QStringLiteral("e6"), {1}));
        QVERIFY(!second->done);
        QCOMPARE(npu->reservations()->waiting(), QStringList{NpuStage::holderOf("e6")});
        first->plan->release();
        QTRY_VERIFY_WITH_TIMEOUT(second->done, 30000);
        QVERIFY(!second->error);
        QCOMPARE(npu->reservations()->holders().value(1), NpuStage::holderOf("e6"));
        second->plan->release();
    }

    void testUnusableChipRefusesTheWholeLaunchAndFreesEveryChip() {
        if (!canProbe())
            QSKIP("needs root (mknod) and bwrap");
        m_npuHost->setOccupied(3, true);
        auto npu = service();
        NpuStage stage(npu.get());
        execution::LaunchPlanner planner(&m_host);
        planner.addStage(&stage);
        const auto planned = plan(planner, context(QStringLiteral("e7"), {3, 4}));
        QTRY_VERIFY_WITH_TIMEOUT(planned->done, 30000);
        m_npuHost->setOccupied(3, false);
        QVERIFY(planned->error.has_value());
        QCOMPARE(planned->error->code, QStringLiteral("npu_unusable"));
        QVERIFY2(planned->error->message.startsWith(
                     QStringLiteral("NPU 3 cannot be opened inside the sandbox: ")),
                 qPrintable(planned->error->message));
        QVERIFY(!planned->error->message.contains(QStringLiteral("NPU 4")));
        QVERIFY(npu->reservations()->heldChips().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestNpuStage)
#include "test_npu_stage.moc"
