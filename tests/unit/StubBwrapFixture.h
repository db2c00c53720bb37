#pragma once
// The set-up shared by the bwrap capability probe and preflight tests (test_capability_probe,
// test_bwrap_preflight): stub bwrap programs (/bin/sh scripts) that log every launch and
// reproduce the refusals seen in the field.
#include "agent/sandbox/CapabilityProbe.h"
#include "agent/sandbox/SandboxCapability.h"

#include <QFile>
#include <QObject>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

// QCOMPARE_EQ prints the probe's enums by name.
namespace QTest {
template <> inline char* toString(const runbox::sandbox::ProcMode& mode) {
    return qstrdup(qPrintable(runbox::sandbox::toString(mode)));
}
template <> inline char* toString(const runbox::sandbox::UsernsBlocking& blocking) {
    return qstrdup(qPrintable(runbox::sandbox::toString(blocking)));
}
} // namespace QTest

namespace stubbwrap {

/// @p text as one single-quoted /bin/sh word.
inline QString shellQuote(const QString& text) {
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
    QString failWithSize; ///< a bwrap older than 0.7.0 does not know `--size`
};

/// Base of the probe and preflight test classes: a fresh directory per test for the stub and
/// its logs. The test class calls freshStubDir() from init().
class StubBwrapFixture : public QObject {
protected:
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
        failIf(QStringLiteral("case \" $* \" in *' --size '*) true;; *) false;; esac"),
               spec.failWithSize);
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

    /// Every launch of the stub but the read-only /proc/sys check (knobCheckCalls()) and the
    /// sized tmpfs check (sizedTmpfsCalls()).
    QStringList loggedCalls() const {
        QStringList calls;
        for (const QString& line : allCalls())
            if (!line.contains(QLatin1String("/proc/self/mountinfo")) &&
                !line.contains(QLatin1String("--size")))
                calls << line;
        return calls;
    }
    /// The launches that check bwrap sizes tmpfs mounts (CapabilityProbe).
    QStringList sizedTmpfsCalls() const {
        QStringList calls;
        for (const QString& line : allCalls())
            if (line.contains(QLatin1String("--size")))
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

    /// Forgets the probe's cached conclusions and gives the test a new, empty directory.
    /// False when it cannot be created.
    bool freshStubDir() {
        runbox::sandbox::CapabilityProbe::resetCacheForTests();
        m_dir = std::make_unique<QTemporaryDir>();
        return m_dir->isValid();
    }
};

} // namespace stubbwrap
