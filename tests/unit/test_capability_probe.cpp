// Capability probe and bwrap preflight against stub bwrap programs that reproduce each refusal
// seen in the field (old bwrap, Docker's /proc, LXC's read-only /proc/sys, both, no user
// namespaces, missing binary, stripped --help), plus one run against the real bwrap.

#include "agent/sandbox/BwrapPreflight.h"
#include "agent/sandbox/CapabilityProbe.h"
#include "agent/sandbox/SandboxCapability.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <memory>
#include <vector>

using namespace runbox::sandbox;

namespace QTest {
template <> char* toString(const ProcMode& mode) {
    return qstrdup(qPrintable(runbox::sandbox::toString(mode)));
}
template <> char* toString(const UsernsBlocking& blocking) {
    return qstrdup(qPrintable(runbox::sandbox::toString(blocking)));
}
} // namespace QTest

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

QString shellQuote(const QString& text) {
    QString quoted = text;
    quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

/// What a stub bwrap does. Each non-empty message makes the matching launch print it on stderr
/// and exit 1, as the real bwrap does.
struct StubSpec {
    QString version = QStringLiteral("bubblewrap 0.8.0");
    QStringList helpOptions{
        QStringLiteral("--unshare-all"),      QStringLiteral("--unshare-user"),
        QStringLiteral("--unshare-user-try"), QStringLiteral("--cap-drop"),
        QStringLiteral("--die-with-parent"),  QStringLiteral("--new-session"),
        QStringLiteral("--seccomp"),          QStringLiteral("--disable-userns")};
    int helpExitCode = 0;
    QString failAlways;
    QString failWithDisableUserns;
    QString failWithProcNew;
    QString failWithProcBind;
};

} // namespace

class TestCapabilityProbe final : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<QTemporaryDir> m_dir;

    QString logPath() const { return m_dir->filePath(QStringLiteral("calls.log")); }
    QString envPath() const { return m_dir->filePath(QStringLiteral("env.log")); }

    /// Writes an executable stub bwrap (a /bin/sh script) that logs each argv as one line.
    QString writeStub(const StubSpec& spec, const QString& name = QStringLiteral("bwrap")) {
        QString help = QStringLiteral("usage: bwrap [OPTIONS...] [--] COMMAND [ARGS...]\n\n");
        for (const QString& option : spec.helpOptions)
            help += QStringLiteral("    %1    Does something\n").arg(option, -28);
        QString script = QStringLiteral("#!/bin/sh\n");
        script += QStringLiteral("printf '%s\\n' \"$*\" >> %1\n").arg(shellQuote(logPath()));
        script += QStringLiteral("case \"$1\" in\n"
                                 "--help) printf '%s' %1; exit %2 ;;\n"
                                 "--version) printf '%s\\n' %3; exit 0 ;;\n"
                                 "esac\n")
                      .arg(shellQuote(help))
                      .arg(spec.helpExitCode)
                      .arg(shellQuote(spec.version));
        script += QStringLiteral("env > %1\n").arg(shellQuote(envPath()));
        script +=
            QStringLiteral("proc_new=0; proc_bind=0; disable_userns=0; prev=\n"
                           "for a in \"$@\"; do\n"
                           "  [ \"$a\" = --proc ] && proc_new=1\n"
                           "  [ \"$a\" = --disable-userns ] && disable_userns=1\n"
                           "  [ \"$prev\" = --ro-bind ] && [ \"$a\" = /proc ] && proc_bind=1\n"
                           "  prev=$a\n"
                           "done\n");
        auto failIf = [&](const QString& condition, const QString& message) {
            if (!message.isEmpty())
                script += QStringLiteral("if %1; then printf '%s\\n' %2 >&2; exit 1; fi\n")
                              .arg(condition, shellQuote(message));
        };
        failIf(QStringLiteral("true"), spec.failAlways);
        failIf(QStringLiteral("[ $disable_userns = 1 ]"), spec.failWithDisableUserns);
        failIf(QStringLiteral("[ $proc_new = 1 ]"), spec.failWithProcNew);
        failIf(QStringLiteral("[ $proc_bind = 1 ]"), spec.failWithProcBind);
        script += QStringLiteral("exit 0\n");

        const QString path = m_dir->filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
            qFatal("cannot write stub %s", qPrintable(path));
        file.write(script.toUtf8());
        file.close();
        file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner |
                            QFile::ReadGroup | QFile::ExeGroup | QFile::ReadOther |
                            QFile::ExeOther);
        return path;
    }

    /// Every launch of the stub but the read-only /proc/sys check (knobCheckCalls()).
    QStringList loggedCalls() const {
        QStringList calls;
        for (const QString& line : allCalls())
            if (!line.contains(QLatin1String("/proc/self/mountinfo")))
                calls << line;
        return calls;
    }
    /// The launches that check /proc/sys is read-only inside (CapabilityProbe, last step).
    QStringList knobCheckCalls() const {
        QStringList calls;
        for (const QString& line : allCalls())
            if (line.contains(QLatin1String("/proc/self/mountinfo")))
                calls << line;
        return calls;
    }
    QStringList allCalls() const {
        QFile file(logPath());
        if (!file.open(QIODevice::ReadOnly))
            return {};
        return QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }

private Q_SLOTS:
    void init() {
        CapabilityProbe::resetCacheForTests();
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }

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

    void testMissingBinaryIsUnusableAndPreflightNamesInstallCommands() {
        const QString missing = m_dir->filePath(QStringLiteral("no-such-bwrap"));
        const SandboxCapability cap = CapabilityProbe::probe(missing);
        QVERIFY(!cap.usable);
        QCOMPARE_EQ(cap.usernsBlocking, UsernsBlocking::Unusable);
        QVERIFY(cap.unusableReason.contains(QStringLiteral("apt-get install bubblewrap")));

        QString resolved = QStringLiteral("stale");
        const QString message = BwrapPreflight::check(missing, &resolved);
        QVERIFY(resolved.isEmpty());
        for (const char* part : {"bubblewrap was not found", "does not exist", "no-such-bwrap",
                                 "apt-get install bubblewrap", "dnf install bubblewrap",
                                 "pacman -S bubblewrap", "apk add bubblewrap"})
            QVERIFY2(message.contains(QLatin1String(part)), qPrintable(message));
    }

    void testPreflightSearchesPathLikeExecvp() {
        const QString stub = writeStub(StubSpec{}, QStringLiteral("bwrap-stub"));
        const QByteArray savedPath = qgetenv("PATH");
        qputenv("PATH", "/nonexistent-runbox-dir::" + QFile::encodeName(m_dir->path()));
        QString resolved;
        const QString ok = BwrapPreflight::check(QStringLiteral("bwrap-stub"), &resolved);
        const QString missing = BwrapPreflight::check(QStringLiteral("bwrap-absent"), &resolved);
        qputenv("PATH", savedPath);
        QVERIFY2(ok.isEmpty(), qPrintable(ok));
        QVERIFY(resolved.isEmpty()); // cleared by the failed second check
        QVERIFY(missing.contains(QStringLiteral("no executable \"bwrap-absent\" on PATH")));
        QVERIFY(missing.contains(QStringLiteral("apk add bubblewrap")));

        QString again;
        QVERIFY(BwrapPreflight::check(stub, &again).isEmpty());
        QCOMPARE(again, stub);
    }

    void testPreflightSkipsNonExecutableFiles() {
        const QString path = m_dir->filePath(QStringLiteral("bwrap"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("#!/bin/sh\nexit 0\n");
        file.close();
        QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
        QString resolved;
        const QString message = BwrapPreflight::check(path, &resolved);
        QVERIFY2(message.contains(QStringLiteral("is not an executable file")),
                 qPrintable(message));
    }

    void testPreflightNamesMissingHelpOptions() {
        StubSpec spec;
        spec.helpOptions = {QStringLiteral("--unshare-all"), QStringLiteral("--unshare-user-try"),
                            QStringLiteral("--cap-drop"), QStringLiteral("--die-with-parent")};
        const QString stub = writeStub(spec);
        QString resolved;
        const QString message = BwrapPreflight::check(stub, &resolved);
        QVERIFY(resolved.isEmpty());
        QVERIFY2(message.startsWith(QStringLiteral("bubblewrap at \"%1\" lacks required sandbox "
                                                   "options: --new-session, --seccomp, "
                                                   "--unshare-user.")
                                        .arg(stub)),
                 qPrintable(message));
        QVERIFY(!message.section(QLatin1Char('.'), 0, 0).contains(QStringLiteral("--cap-drop")));
        QVERIFY(message.contains(QStringLiteral("apt-get install bubblewrap")));
    }

    void testPreflightAcceptsCompleteHelp() {
        const QString stub = writeStub(StubSpec{});
        QString resolved;
        const QString message = BwrapPreflight::check(stub, &resolved);
        QVERIFY2(message.isEmpty(), qPrintable(message));
        QCOMPARE(resolved, stub);
    }

    void testPreflightReportsFailingHelp() {
        StubSpec spec;
        spec.helpExitCode = 3;
        const QString stub = writeStub(spec);
        QString resolved;
        const QString message = BwrapPreflight::check(stub, &resolved);
        QVERIFY2(message.startsWith(
                     QStringLiteral("Could not execute bubblewrap at \"%1\": ").arg(stub)),
                 qPrintable(message));
        QVERIFY(message.contains(QStringLiteral("status 3")));
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
    }
};

QTEST_GUILESS_MAIN(TestCapabilityProbe)
#include "test_capability_probe.moc"
