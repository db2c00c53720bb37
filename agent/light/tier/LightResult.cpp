#include "agent/light/tier/LightResult.h"

#include <cerrno>
#include <csignal>
#include <cstring>

namespace runbox::light {

namespace {
QString signalName(int signal) {
    const char* abbrev = signal > 0 ? ::sigabbrev_np(signal) : nullptr;
    return abbrev ? QStringLiteral("SIG") + QLatin1String(abbrev)
                  : QStringLiteral("signal %1").arg(signal);
}
} // namespace

execution::ExecutionResult lightResultOf(const LightExitStatus& s, const QString& stopStatus,
                                         const QString& stopReason, qint64 timeoutMs) {
    using Kind = LightExitStatus::Kind;
    execution::ExecutionResult r;
    r.durationMs = s.durationMs;
    if (s.kind == Kind::SetupFailed) {
        r.status = QStringLiteral("setup_failed");
        r.reason = s.message;
    } else if (s.timedOut) {
        r.status = QStringLiteral("timed_out");
        r.signal = QStringLiteral("SIGKILL");
        r.reason = QStringLiteral("execution exceeded its %1 ms timeout").arg(timeoutMs);
    } else if (!stopStatus.isEmpty()) {
        r.status = stopStatus;
        r.signal = QStringLiteral("SIGKILL");
        r.reason = stopReason;
    } else if (s.cancelled) {
        r.status = QStringLiteral("cancelled");
        r.signal = QStringLiteral("SIGKILL");
        r.reason = QStringLiteral("the workspace was deleted");
    } else if (s.kind == Kind::Exited) {
        r.exitCode = s.exitCode;
        r.status = s.exitCode == 0 ? QStringLiteral("completed") : QStringLiteral("failed");
    } else if (s.kind == Kind::Signaled) {
        r.status = QStringLiteral("failed");
        r.exitCode = 128 + s.signal; // the shell convention, as bwrap reports it for strong
        r.signal = signalName(s.signal);
        r.reason = QStringLiteral("the command was killed by %1").arg(r.signal);
    } else if (s.kind == Kind::SpawnFailed) {
        r.status = QStringLiteral("failed");
        r.exitCode = s.errorNumber == ENOENT ? 127 : 126; // as a shell reports it
        r.reason = s.message;
    } else {
        r.status = QStringLiteral("lost");
        r.reason =
            s.message.isEmpty() ? QStringLiteral("the workspace supervisor went away") : s.message;
    }
    return r;
}

} // namespace runbox::light
