// Capability probe against stub bwrap programs that reproduce each refusal seen in the field
// (old bwrap, Docker's /proc, LXC's read-only /proc/sys, both, no user namespaces), its cache,
// plus one run against the real bwrap. The preflight (missing binary, PATH, --help):
// test_bwrap_preflight.

#include "StubBwrapFixture.h"

#include "agent/sandbox/BwrapPreflight.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QThread>

#include <vector>

using namespace runbox::sandbox;
using namespace stubbwrap;

namespace {

const QString kDockerProc =
    QStringLiteral("bwrap: Can't mount proc on /newroot/proc: Operation not permitted");
const QString kUnknownOption = QStringLiteral("bwrap: Unknown option --disable-userns");
const QString kReadOnlyProcSys =
    QStringLiteral("bwrap: cannot write /proc/sys/user/max_user_namespaces: Read-only file system");
const QString kNoUserns = QStringLiteral(
    "bwrap: No permissions to creating new namespace, likely because the kernel does not allow "
    "non-privileged user namespaces. On e.g. debian this can be enabled with 'sysctl "
    "kernel.unprivileged_userns_clone=1'.");
const QString kNestedNotBlocked =
    QStringLiteral("nested user namespaces inside executions are not blocked");

const QStringList kProbeBase{QStringLiteral("--unshare-all"), QStringLiteral("--unshare-user"),
                             QStringLiteral("--die-with-parent")};
const QString kProbeMounts = QStringLiteral("--ro-bind /usr /usr --symlink usr/bin /bin "
                                            "--symlink usr/lib /lib --symlink usr/lib64 /lib64");

QString expectedProbeLine(const QString& proc, bool disableUserns) {
    QString line = kProbeBase.join(QLatin1Char(' '));
    if (disableUserns)
        line += QStringLiteral(" --disable-userns");
    line += QLatin1Char(' ') + kProbeMounts + QLatin1Char(' ') + proc +
            QStringLiteral(" /usr/bin/true");
    return line;
}
const QString kProcNew = QStringLiteral("--proc /proc");
const QString kProcBind = QStringLiteral("--ro-bind /proc /proc");

} // namespace

class TestCapabilityProbe final : public StubBwrapFixture {
    Q_OBJECT

private Q_SLOTS:
    void init() { QVERIFY(freshStubDir()); }

    // Positive control: a stub that accepts everything gives the best conclusion, through the
    // exact probe launches of the original runner, in order.
    void testWorkingBwrapIsUsableWithNewProcAndBlockedUserns() {
        const QString stub = writeStub(StubSpec{});
        const SandboxCapability cap = CapabilityProbe::probe(stub);
        QVERIFY(cap.usable);
        QCOMPARE_EQ(cap.procMode, ProcMode::New);
        QCOMPARE_EQ(cap.usernsBlocking, UsernsBlocking::Supported);
        QCOMPARE(cap.bwrapPath, stub);
        QCOMPARE(cap.bwrapVersion, QStringLiteral("bubblewrap 0.8.0"));
        QVERIFY(cap.warnings.isEmpty());
        QVERIFY(cap.detail.isEmpty());
        QVERIFY(cap.unusableReason.isEmpty());
        QCOMPARE(loggedCalls(),
                 (QStringList{QStringLiteral("--version"), expectedProbeLine(kProcNew, false),
                              expectedProbeLine(kProcNew, true)}));
        // Once usable, one launch checks that /proc/sys is read-only with the launch's binds.
        QCOMPARE(knobCheckCalls().size(), 1);
        QVERIFY(knobCheckCalls().first().contains(
            kProcNew + QStringLiteral(" --ro-bind /proc/sys /proc/sys")));
        const QString summary = cap.summaryLine();
        QVERIFY2(summary.startsWith(QStringLiteral("sandbox: bubblewrap 0.8.0 usable; /proc new; "
                                                   "nested userns blocked")),
                 qPrintable(summary));
        // And one that bwrap sizes tmpfs mounts and makes /dev read-only (docs/bounds.md).
        QVERIFY(cap.sizedTmpfs);
        QCOMPARE(sizedTmpfsCalls().size(), 1);
        QVERIFY(sizedTmpfsCalls().first().contains(
            QStringLiteral("--dev /dev --remount-ro /dev --perms 01777 --size 1048576 --tmpfs "
                           "/dev/shm --size 1048576 --tmpfs /tmp")));
    }

    void testBwrapWithoutSizeKeepsUsableAndWarns() {
        StubSpec spec;
        spec.failWithSize = QStringLiteral("bwrap: Unknown option --size");
        const SandboxCapability cap = CapabilityProbe::probe(writeStub(spec));
        QVERIFY(cap.usable);
        QVERIFY(!cap.sizedTmpfs);
        QCOMPARE(cap.warnings.size(), 1);
        QVERIFY2(cap.warnings.first().contains(QLatin1String("Unknown option --size")) &&
                     cap.warnings.first().contains(QLatin1String("/dev/shm")),
                 qPrintable(cap.warnings.first()));
        QCOMPARE(cap.toJson().value(QStringLiteral("sizedTmpfs")).toBool(true), false);
    }

    void testProbeRunsBwrapWithFixedMinimalEnvironment() {
        qputenv("RUNBOX_PROBE_CANARY", "must-not-leak");
        const QString stub = writeStub(StubSpec{});
        CapabilityProbe::probe(stub);
        qunsetenv("RUNBOX_PROBE_CANARY");
        QFile file(envPath());
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QStringList env =
            QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY(env.contains(QStringLiteral("PATH=/usr/bin:/bin")));
        QVERIFY(env.contains(QStringLiteral("LANG=C.UTF-8")));
        for (const QString& line : env) {
            // /bin/sh adds PWD (and possibly OLDPWD/SHLVL) itself; nothing else may appear.
            const QString name = line.section(QLatin1Char('='), 0, 0);
            QVERIFY2((QStringList{QStringLiteral("PATH"), QStringLiteral("LANG"),
                                  QStringLiteral("PWD"), QStringLiteral("OLDPWD"),
                                  QStringLiteral("SHLVL"), QStringLiteral("_")})
                         .contains(name),
                     qPrintable(line));
        }
    }

    void testDockerProcRefusalFallsBackToBindWithWarning() {
        StubSpec spec;
        spec.failWithProcNew = kDockerProc;
        const SandboxCapability cap = CapabilityProbe::probe(writeStub(spec));
        QVERIFY(cap.usable);
        QCOMPARE_EQ(cap.procMode, ProcMode::Bind);
        QCOMPARE_EQ(cap.usernsBlocking, UsernsBlocking::Supported);
        QCOMPARE(cap.procDetail, kDockerProc);
        QCOMPARE(
            loggedCalls(),
            (QStringList{QStringLiteral("--version"), expectedProbeLine(kProcNew, false),
                         expectedProbeLine(kProcBind, false), expectedProbeLine(kProcBind, true)}));
        QCOMPARE(cap.warnings.size(), 1);
        const QString warning = cap.warnings.first();
        for (const char* part :
             {"--ro-bind /proc /proc", "process list", "Docker", "readonlyPaths/maskedPaths",
              "security_opt: systempaths=unconfined", "Do not use privileged", "Can't mount proc"})
            QVERIFY2(warning.contains(QLatin1String(part)), qPrintable(warning));
        QCOMPARE(cap.toJson().value(QStringLiteral("procMode")).toString(), QStringLiteral("bind"));
        QVERIFY(cap.summaryLine().contains(QStringLiteral("/proc bind")));
    }

    void testOldBwrapWithoutDisableUsernsIsOptionUnknown() {
        StubSpec spec;
        spec.version = QStringLiteral("bubblewrap 0.6.1");
        spec.helpOptions.removeAll(QStringLiteral("--disable-userns"));
        spec.failWithDisableUserns = kUnknownOption;
        const SandboxCapability cap = CapabilityProbe::probe(writeStub(spec));
        QVERIFY(cap.usable);
        QCOMPARE_EQ(cap.procMode, ProcMode::New);
        QCOMPARE_EQ(cap.usernsBlocking, UsernsBlocking::OptionUnknown);
        QCOMPARE(cap.detail, kUnknownOption);
        QCOMPARE(cap.warnings.size(), 1);
        const QString warning = cap.warnings.first();
        for (const char* part : {"--disable-userns", "bwrap >= 0.8", "Upgrade bubblewrap"})
            QVERIFY2(warning.contains(QLatin1String(part)), qPrintable(warning));
        QVERIFY2(warning.contains(kNestedNotBlocked), qPrintable(warning));
        QCOMPARE(cap.toJson().value(QStringLiteral("nestedUserns")).toString(),
                 QStringLiteral("option-unknown"));
        QVERIFY(cap.summaryLine().contains(QStringLiteral("bubblewrap 0.6.1 usable")));
        QVERIFY(cap.summaryLine().contains(QStringLiteral("option-unknown")));
    }

    void testReadOnlyProcSysIsOptionRejected() {
        StubSpec spec;
        spec.failWithDisableUserns = kReadOnlyProcSys;
        const SandboxCapability cap = CapabilityProbe::probe(writeStub(spec));
        QVERIFY(cap.usable);
        QCOMPARE_EQ(cap.procMode, ProcMode::New);
        QCOMPARE_EQ(cap.usernsBlocking, UsernsBlocking::OptionRejected);
        QCOMPARE(cap.detail, kReadOnlyProcSys);
        QCOMPARE(cap.warnings.size(), 1);
        const QString warning = cap.warnings.first();
        for (const char* part : {"rejected --disable-userns", "LXC", "/proc/sys is read-only",
                                 "user.max_user_namespaces"})
            QVERIFY2(warning.contains(QLatin1String(part)), qPrintable(warning));
        QVERIFY2(warning.contains(kNestedNotBlocked), qPrintable(warning));
        QVERIFY(!warning.contains(QStringLiteral("bwrap >= 0.8")));
        QCOMPARE(cap.toJson().value(QStringLiteral("nestedUserns")).toString(),
                 QStringLiteral("option-rejected"));
    }

    // Docker's /proc and an old bwrap together (e.g. Ubuntu 22.04 in Docker): the
    // --disable-userns retry uses the /proc shape that worked.
    void testProcFallbackAndOldBwrapTogether() {
        StubSpec spec;
        spec.failWithProcNew = kDockerProc;
        spec.failWithDisableUserns = kUnknownOption;
        const SandboxCapability cap = CapabilityProbe::probe(writeStub(spec));
        QVERIFY(cap.usable);
        QCOMPARE_EQ(cap.procMode, ProcMode::Bind);
        QCOMPARE_EQ(cap.usernsBlocking, UsernsBlocking::OptionUnknown);
        QCOMPARE(cap.procDetail, kDockerProc);
        QCOMPARE(cap.detail, kUnknownOption);
        QCOMPARE(loggedCalls().last(), expectedProbeLine(kProcBind, true));
        QCOMPARE(cap.warnings.size(), 2);
        QVERIFY(cap.warnings.at(0).contains(QStringLiteral("systempaths=unconfined")));
        QVERIFY(cap.warnings.at(1).contains(QStringLiteral("bwrap >= 0.8")));
        QCOMPARE(cap.toJson().value(QStringLiteral("warnings")).toArray().size(), 2);
        QVERIFY(cap.summaryLine().contains(QStringLiteral("2 warning(s)")));
    }

    void testProcFallbackAndReadOnlyProcSysTogether() {
        StubSpec spec;
        spec.failWithProcNew = kDockerProc;
        spec.failWithDisableUserns = kReadOnlyProcSys;
        const SandboxCapability cap = CapabilityProbe::probe(writeStub(spec));
        QVERIFY(cap.usable);
        QCOMPARE_EQ(cap.procMode, ProcMode::Bind);
        QCOMPARE_EQ(cap.usernsBlocking, UsernsBlocking::OptionRejected);
        QCOMPARE(cap.warnings.size(), 2);
        QVERIFY(cap.warnings.at(1).contains(QStringLiteral("LXC")));
    }

    void testNoUserNamespacesIsUnusableWithSysctlHints() {
        StubSpec spec;
        spec.failAlways = kNoUserns;
        const QString stub = writeStub(spec);
        const SandboxCapability cap = CapabilityProbe::probe(stub);
        QVERIFY(!cap.usable);
        QCOMPARE_EQ(cap.usernsBlocking, UsernsBlocking::Unusable);
        QCOMPARE(cap.detail, kNoUserns);
        // No --disable-userns attempt once no /proc shape works.
        QCOMPARE(loggedCalls(),
                 (QStringList{QStringLiteral("--version"), expectedProbeLine(kProcNew, false),
                              expectedProbeLine(kProcBind, false)}));
        const QString reason = cap.unusableReason;
        for (const QString& part :
             {QStringLiteral("bubblewrap at \"%1\" could not build a sandbox: ").arg(stub) +
                  kNoUserns,
              QStringLiteral("sysctl kernel.unprivileged_userns_clone"),
              QStringLiteral("sysctl kernel.apparmor_restrict_unprivileged_userns"),
              QStringLiteral("503 sandbox_unavailable"),
              QStringLiteral("nothing runs unsandboxed")})
            QVERIFY2(reason.contains(part), qPrintable(reason));
        const QJsonObject json = cap.toJson();
        QCOMPARE(json.value(QStringLiteral("usable")).toBool(), false);
        QCOMPARE(json.value(QStringLiteral("nestedUserns")).toString(), QStringLiteral("unusable"));
        QCOMPARE(json.value(QStringLiteral("unusableReason")).toString(), reason);
        QVERIFY2(cap.summaryLine().contains(QStringLiteral("UNUSABLE")),
                 qPrintable(cap.summaryLine()));
    }

    // When both /proc shapes fail, the reason reports the --proc failure (the first one).
    void testUnusableCarriesTheNewProcFailureDetail() {
        StubSpec spec;
        spec.failWithProcNew = QStringLiteral("bwrap: first failure");
        spec.failWithProcBind = QStringLiteral("bwrap: second failure");
        const SandboxCapability cap = CapabilityProbe::probe(writeStub(spec));
        QVERIFY(!cap.usable);
        QCOMPARE(cap.detail, QStringLiteral("bwrap: first failure"));
    }

    void testSilentFailureIsDescribed() {
        StubSpec spec;
        spec.failAlways = QStringLiteral(" "); // prints a blank line only
        const SandboxCapability cap = CapabilityProbe::probe(writeStub(spec));
        QVERIFY(!cap.usable);
        QCOMPARE(cap.detail, QStringLiteral("exited with status 1 and no message"));
    }

    void testConclusionIsCachedPerBinaryIdentity() {
        const QString stub = writeStub(StubSpec{});
        const SandboxCapability first = CapabilityProbe::probe(stub);
        const int callsAfterFirst = int(loggedCalls().size());
        QCOMPARE(callsAfterFirst, 3);
        const SandboxCapability second = CapabilityProbe::probe(stub);
        QCOMPARE(loggedCalls().size(), callsAfterFirst);
        QCOMPARE(second.toJson(), first.toJson());

        // A replaced binary (different size and mtime) is probed again.
        StubSpec older;
        older.version = QStringLiteral("bubblewrap 0.6.1");
        older.failWithDisableUserns = kUnknownOption;
        writeStub(older);
        const SandboxCapability third = CapabilityProbe::probe(stub);
        QCOMPARE(loggedCalls().size(), callsAfterFirst + 3);
        QCOMPARE_EQ(third.usernsBlocking, UsernsBlocking::OptionUnknown);
        QCOMPARE(third.bwrapVersion, QStringLiteral("bubblewrap 0.6.1"));
    }

    void testUnusableConclusionIsCachedToo() {
        StubSpec spec;
        spec.failAlways = kNoUserns;
        const QString stub = writeStub(spec);
        QVERIFY(!CapabilityProbe::probe(stub).usable);
        const qsizetype calls = loggedCalls().size();
        QVERIFY(!CapabilityProbe::probe(stub).usable);
        QCOMPARE(loggedCalls().size(), calls);
    }

    void testConcurrentCallersShareOneProbe() {
        const QString stub = writeStub(StubSpec{});
        constexpr int kThreads = 4;
        std::vector<SandboxCapability> results(kThreads);
        std::vector<std::unique_ptr<QThread>> threads;
        for (int i = 0; i < kThreads; ++i) {
            threads.emplace_back(QThread::create(
                [&results, i, stub] { results[size_t(i)] = CapabilityProbe::probe(stub); }));
            threads.back()->start();
        }
        for (auto& thread : threads)
            QVERIFY(thread->wait(60000));
        QCOMPARE(loggedCalls().size(), 3);
        QCOMPARE(knobCheckCalls().size(), 1);
        for (const SandboxCapability& cap : results) {
            QVERIFY(cap.usable);
            QCOMPARE(cap.toJson(), results.front().toJson());
        }
    }

    // The real bwrap on this machine: usable, its own /proc, nested user namespaces blocked.
    void testRealBwrapIsFullyCapable() {
        const QString real = QStringLiteral("/usr/bin/bwrap");
        if (!QFileInfo::exists(real))
            QSKIP("bubblewrap is not installed at /usr/bin/bwrap");
        QString resolved;
        const QString preflight = BwrapPreflight::check(real, &resolved);
        QVERIFY2(preflight.isEmpty(), qPrintable(preflight));
        const SandboxCapability cap = CapabilityProbe::probe(resolved);
        QVERIFY2(cap.usable, qPrintable(cap.unusableReason));
        QCOMPARE_EQ(cap.procMode, ProcMode::New);
        QCOMPARE_EQ(cap.usernsBlocking, UsernsBlocking::Supported);
        QVERIFY2(cap.warnings.isEmpty(), qPrintable(cap.warnings.join(QLatin1Char('\n'))));
        QVERIFY2(cap.bwrapVersion.startsWith(QStringLiteral("bubblewrap ")),
                 qPrintable(cap.bwrapVersion));
        QVERIFY(cap.sizedTmpfs); // bubblewrap 0.8 on Debian 12
    }
};

QTEST_GUILESS_MAIN(TestCapabilityProbe)
#include "test_capability_probe.moc"
