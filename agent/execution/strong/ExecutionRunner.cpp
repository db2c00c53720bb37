#include "agent/execution/strong/ExecutionRunner.h"

#include <QJsonArray>

#include <csignal>
#include <cstring>

namespace runbox::execution {

namespace {
constexpr qsizetype kStderrHeadBytes = 8192;

QString lastBwrapLine(const QByteArray& stderrHead) {
    QString last;
    for (const QByteArray& line : stderrHead.split('\n'))
        if (line.startsWith("bwrap: "))
            last = QString::fromUtf8(line.trimmed());
    return last;
}
} // namespace

QJsonObject ExecutionResult::toEvent() const {
    QJsonObject ev{{"type", "exit"},
                   {"status", status},
                   {"exitCode", exitCode >= 0 ? QJsonValue(exitCode) : QJsonValue()},
                   {"signal", signal.isEmpty() ? QJsonValue() : QJsonValue(signal)},
                   {"durationMs", durationMs},
                   {"createdFiles", QJsonArray::fromStringList(changes.created)},
                   {"modifiedFiles", QJsonArray::fromStringList(changes.modified)},
                   {"deletedFiles", QJsonArray::fromStringList(changes.deleted)},
                   {"filesTruncated", changes.truncated},
                   {"stdoutBytes", stdoutBytes},
                   {"stderrBytes", stderrBytes},
                   {"usage", usage.toJson()}};
    if (!reason.isEmpty())
        ev.insert(QStringLiteral("reason"), reason);
    return ev;
}

ExecutionRunner::ExecutionRunner(sandbox::SandboxLaunch launch, Options options, QObject* parent)
    : ExecutionBackend(parent), m_launch(std::move(launch)), m_options(std::move(options)),
      m_process(new SandboxProcess(this)) {
    m_timeout.setSingleShot(true);
    // A coarse timer may fire up to 5 % early: a run must get at least its executionTimeoutMs.
    m_timeout.setTimerType(Qt::PreciseTimer);
    m_setupTimer.setSingleShot(true);
    connect(&m_timeout, &QTimer::timeout, this, [this] {
        stop(QStringLiteral("timed_out"),
             QStringLiteral("execution exceeded its %1 ms timeout").arg(m_options.timeoutMs));
    });
    connect(&m_setupTimer, &QTimer::timeout, this, &ExecutionRunner::checkSetup);
    connect(m_process, &SandboxProcess::stdoutData, this,
            [this](const QByteArray& d) { onOutput(0, d); });
    connect(m_process, &SandboxProcess::stderrData, this,
            [this](const QByteArray& d) { onOutput(1, d); });
    connect(m_process, &SandboxProcess::finished, this, &ExecutionRunner::onProcessFinished);
    connect(m_process, &SandboxProcess::sandboxChildKnown, this,
            [this](pid_t pid) { Q_EMIT pidNamespaceInitKnown(qint64(pid)); });
}

void ExecutionRunner::start() {
    if (m_options.tracking.snapshotBefore)
        m_options.tracking.snapshotBefore();
    m_clock.start();
    QString error;
    if (!m_process->start(m_launch, m_options.stdinData, m_options.maxProcesses, &error,
                          m_options.guardPath)) {
        ExecutionResult r;
        r.status = QStringLiteral("setup_failed");
        r.reason = error;
        r.setupFailureCause = QStringLiteral("spawn");
        finishWith(r);
        return;
    }
    if (m_options.timeoutMs > 0)
        m_timeout.start(int(std::min<qint64>(m_options.timeoutMs, INT_MAX)));
    m_setupTimer.start(int(std::min<qint64>(m_options.setupTimeoutMs, INT_MAX)));
}

void ExecutionRunner::checkSetup() {
    if (m_finished || m_process->commandForked())
        return;
    m_setupTimedOut = m_stopStatus.isEmpty();
    stop(
        QStringLiteral("setup_failed"),
        QStringLiteral("sandbox set-up did not finish within %1 ms").arg(m_options.setupTimeoutMs));
}

void ExecutionRunner::stop(const QString& status, const QString& reason) {
    if (m_finished || !m_stopStatus.isEmpty())
        return;
    m_stopStatus = status;
    m_stopReason = reason;
    m_process->killGroup();
    m_process->setReadingPaused(false);
}

void ExecutionRunner::setPaused(bool paused) {
    if (m_stopStatus.isEmpty())
        m_process->setReadingPaused(paused);
}

void ExecutionRunner::onOutput(int stream, const QByteArray& data) {
    if (!m_stopStatus.isEmpty() && m_stopStatus != QLatin1String("timed_out") &&
        m_stopStatus != QLatin1String("cancelled"))
        return; // output past a limit is dropped
    if (stream == 1 && m_stderrHead.size() < kStderrHeadBytes)
        m_stderrHead += data.left(kStderrHeadBytes - m_stderrHead.size());
    m_streamBytes[stream] += data.size();
    Q_EMIT output(OutputStream(stream), data);
}

void ExecutionRunner::onProcessFinished(const ProcessExit& exit) {
    ExecutionResult r;
    r.exitCode = exit.exited ? exit.exitCode : -1;
    r.usage.cpuUserMs = exit.cpuUserMs;
    r.usage.cpuSystemMs = exit.cpuSystemMs;
    if (!m_stopStatus.isEmpty()) {
        r.status = m_stopStatus;
        r.reason = m_stopReason;
        r.signal = QStringLiteral("SIGKILL");
        if (m_setupTimedOut)
            r.setupFailureCause = QStringLiteral("timeout");
    } else if (!exit.exited) {
        r.status = QStringLiteral("failed");
        r.signal = QString::fromLatin1(sigabbrev_np(exit.signal) ? sigabbrev_np(exit.signal) : "");
        r.signal.prepend(QStringLiteral("SIG"));
        r.reason = QStringLiteral("the sandbox was killed by a signal");
    } else if (!exit.commandStarted) {
        const QString detail = lastBwrapLine(m_stderrHead);
        if (detail.contains(QLatin1String("execvp"))) {
            r.status = QStringLiteral("failed");
            r.exitCode = 127;
            r.reason = detail;
        } else {
            r.status = QStringLiteral("setup_failed");
            r.exitCode = -1;
            r.reason = detail.isEmpty() ? QStringLiteral("the sandbox could not be built") : detail;
            r.setupFailureCause = QStringLiteral("sandbox");
        }
    } else if (const std::optional<sandbox::SetupFailure> failure = setupFailure(exit)) {
        r.status = failure->status;
        r.exitCode = failure->exitCode;
        r.reason = failure->reason;
        r.setupFailureCause = QStringLiteral("helper");
    } else {
        r.status = exit.exitCode == 0 ? QStringLiteral("completed") : QStringLiteral("failed");
    }
    finishWith(r);
}

std::optional<sandbox::SetupFailure> ExecutionRunner::setupFailure(const ProcessExit& exit) const {
    if (!exit.setupStatusExpected)
        return std::nullopt;
    const QString line = QString::fromUtf8(exit.setupStatus).trimmed();
    if (!m_launch.readSetupStatus) // fail closed: a channel nobody reads proves nothing
        return sandbox::SetupFailure{QStringLiteral("setup_failed"), -1,
                                     QStringLiteral("the launch helper's report was not read")};
    return m_launch.readSetupStatus(line, exit.exitCode);
}

void ExecutionRunner::finishWith(ExecutionResult result) {
    if (m_finished)
        return;
    m_finished = true;
    m_timeout.stop();
    m_setupTimer.stop();
    result.durationMs = m_clock.isValid() ? m_clock.elapsed() : 0;
    result.stdoutBytes = m_streamBytes[0];
    result.stderrBytes = m_streamBytes[1];
    if (m_options.tracking.changesAfter && result.status != QLatin1String("setup_failed"))
        result.changes = m_options.tracking.changesAfter();
    if (m_options.beforeExitEvent)
        m_options.beforeExitEvent();
    Q_EMIT finished(result);
}

} // namespace runbox::execution
