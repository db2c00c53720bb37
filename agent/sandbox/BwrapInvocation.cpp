#include "agent/sandbox/BwrapInvocation.h"

#include <QDeadlineTimer>
#include <QProcess>

#include <algorithm>

#include <unistd.h>

namespace runbox::sandbox {
namespace {

constexpr qsizetype kMaxStreamBytes = 1024 * 1024;
constexpr int kDetailMaxChars = 500;
constexpr int kDrainSliceMs = 100;

void appendBounded(QByteArray* buffer, const QByteArray& chunk) {
    const qsizetype room = kMaxStreamBytes - buffer->size();
    if (room > 0)
        buffer->append(chunk.left(room));
}

} // namespace

QString BwrapInvocation::Result::failureDetail() const {
    const QList<QByteArray> lines = standardError.split('\n');
    for (auto it = lines.crbegin(); it != lines.crend(); ++it) {
        const QString line = QString::fromUtf8(*it).trimmed();
        if (!line.isEmpty())
            return line.left(kDetailMaxChars);
    }
    if (!errorString.isEmpty())
        return errorString;
    if (started && !timedOut && !crashed)
        return QStringLiteral("exited with status %1 and no message").arg(exitCode);
    return QStringLiteral("failed without a message");
}

QProcessEnvironment BwrapInvocation::minimalEnvironment() {
    QProcessEnvironment env;
    env.insert(QStringLiteral("PATH"), QStringLiteral("/usr/bin:/bin"));
    env.insert(QStringLiteral("LANG"), QStringLiteral("C.UTF-8"));
    return env;
}

BwrapInvocation::Result BwrapInvocation::run(const QString& program, const QStringList& arguments,
                                             int timeoutMs, bool keepStandardOutput,
                                             const std::optional<SandboxUser>& user) {
    Result result;
    QProcess process;
    if (user) {
        SandboxUser::Prepared prepared;
        if (!user->prepare(&prepared)) {
            result.errorString = QStringLiteral("sandbox user %1 cannot be used").arg(user->uid);
            return result;
        }
        process.setChildProcessModifier([prepared] {
            if (SandboxUser::dropInChild(prepared) != 0)
                ::_exit(127);
        });
    } else {
        // The agent's own uid: none of its capabilities may reach bwrap
        // (clearInheritedCapabilities).
        process.setChildProcessModifier([] {
            if (clearInheritedCapabilities() != 0)
                ::_exit(127);
        });
    }
    process.setProgram(program);
    process.setArguments(arguments);
    process.setProcessEnvironment(minimalEnvironment());
    process.setStandardInputFile(QProcess::nullDevice());
    if (!keepStandardOutput)
        process.setStandardOutputFile(QProcess::nullDevice());

    process.start();
    if (!process.waitForStarted(std::max(timeoutMs, 1))) {
        result.errorString =
            QStringLiteral("could not execute %1: %2").arg(program, process.errorString());
        if (process.state() != QProcess::NotRunning) {
            process.kill();
            process.waitForFinished(-1);
        }
        return result;
    }
    result.started = true;

    const QDeadlineTimer deadline(timeoutMs);
    bool finished = false;
    while (!finished) {
        const qint64 remaining = deadline.remainingTime();
        if (remaining <= 0)
            break;
        finished = process.waitForFinished(int(std::min<qint64>(remaining, kDrainSliceMs)));
        if (keepStandardOutput)
            appendBounded(&result.standardOutput, process.readAllStandardOutput());
        appendBounded(&result.standardError, process.readAllStandardError());
        if (process.state() == QProcess::NotRunning)
            finished = true;
    }

    if (!finished) {
        result.timedOut = true;
        result.errorString = QStringLiteral("%1 did not finish within %2 ms and was killed")
                                 .arg(program)
                                 .arg(timeoutMs);
        process.kill();
        process.waitForFinished(-1);
        return result;
    }
    if (keepStandardOutput)
        appendBounded(&result.standardOutput, process.readAllStandardOutput());
    appendBounded(&result.standardError, process.readAllStandardError());

    if (process.exitStatus() == QProcess::CrashExit) {
        result.crashed = true;
        result.errorString = QStringLiteral("%1 was ended by a signal").arg(program);
        return result;
    }
    result.exitCode = process.exitCode();
    return result;
}

} // namespace runbox::sandbox
