// bwrap preflight against stub bwrap programs: a missing binary (and the probe's conclusion on
// it), the PATH search like execvp, non-executable files, a --help that lacks sandbox options or
// fails. The capability probe itself: test_capability_probe.

#include "StubBwrapFixture.h"

#include "agent/sandbox/BwrapPreflight.h"

using namespace runbox::sandbox;
using namespace stubbwrap;

class TestBwrapPreflight final : public StubBwrapFixture {
    Q_OBJECT

private Q_SLOTS:
    void init() { QVERIFY(freshStubDir()); }

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
};

QTEST_GUILESS_MAIN(TestBwrapPreflight)
#include "test_bwrap_preflight.moc"
