#include "agent/npu/BrokerJob.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QThread>
#include <QTimer>

#include <csignal>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace runbox::npu {

namespace {

#ifndef CLOSE_RANGE_CLOEXEC
constexpr unsigned kCloseRangeCloexec =
    1U << 2; // linux/close_range.h (5.11), absent from 6.1 libc headers here
#else
constexpr unsigned kCloseRangeCloexec = CLOSE_RANGE_CLOEXEC;
#endif

/// Runs in the child between fork and exec (async-signal-safe calls only): its own session and
/// process group, default signal dispositions, an empty signal mask, and every inherited
/// descriptor above stderr marked close-on-exec except the @p count pinned inputs in @p keep.
void prepareChild(const int* keep, std::size_t count) {
    ::setsid();
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig)
        if (sig != SIGKILL && sig != SIGSTOP)
            ::sigaction(sig, &dfl, nullptr);
    sigset_t none;
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::syscall(SYS_close_range, 3U, ~0U, kCloseRangeCloexec);
    for (std::size_t i = 0; i < count; ++i)
        ::fcntl(keep[i], F_SETFD, 0);
}

constexpr int kReapPollMs = 10;
constexpr int kReapTimeoutMs = 5000;

} // namespace

BrokerJob::BrokerJob(Spec spec, QObject* parent)
    : QObject(parent), m_spec(std::move(spec)), m_createdAt(QDateTime::currentDateTimeUtc()) {}

BrokerJob::~BrokerJob() {
    if (m_process && m_process->state() != QProcess::NotRunning) {
        if (m_pid > 1)
            ::kill(static_cast<pid_t>(-m_pid), SIGKILL);
        m_process->waitForFinished(2000);
    }
}

bool BrokerJob::isFinal() const {
    return m_state != State::Queued && m_state != State::Running;
}

QString BrokerJob::stateName(State state) {
    switch (state) {
    case State::Queued:
        return QStringLiteral("queued");
    case State::Running:
        return QStringLiteral("running");
    case State::Completed:
        return QStringLiteral("completed");
    case State::Failed:
        return QStringLiteral("failed");
    case State::Cancelled:
        return QStringLiteral("cancelled");
    case State::TimedOut:
        return QStringLiteral("timed_out");
    case State::SetupFailed:
        return QStringLiteral("setup_failed");
    }
    return QStringLiteral("failed");
}

void BrokerJob::start() {
    if (m_state != State::Queued)
        return;
    if (m_spec.argv.isEmpty()) {
        finish(State::SetupFailed, QStringLiteral("the workload has no program"));
        return;
    }
    m_process = new QProcess(this);
    m_process->setProgram(m_spec.argv.first());
    m_process->setArguments(m_spec.argv.mid(1));
    m_process->setWorkingDirectory(m_spec.workspace);
    m_process->setProcessEnvironment(m_spec.environment);
    m_process->setStandardInputFile(QProcess::nullDevice());
    std::vector<int> keep;
    for (const BrokerInput& input : m_spec.inputs)
        keep.push_back(input.fd());
    sandbox::SandboxUser::Prepared user;
    if (m_spec.user && !m_spec.user->prepare(&user)) {
        finish(State::SetupFailed,
               QStringLiteral("the job's uid cannot be prepared (too many device groups)"));
        return;
    }
    m_process->setChildProcessModifier(
        [keep = std::move(keep), user, drop = m_spec.user.has_value()] {
            prepareChild(keep.data(), keep.size());
            if (drop && sandbox::SandboxUser::dropInChild(user) != 0) {
                static const char message[] = "runbox: cannot drop to the workspace's uid\n";
                (void)!::write(STDERR_FILENO, message, sizeof(message) - 1);
                ::_exit(126);
            }
        });
    connect(m_process, &QProcess::readyReadStandardOutput, this,
            [this] { readChannel(Stream::Stdout); });
    connect(m_process, &QProcess::readyReadStandardError, this,
            [this] { readChannel(Stream::Stderr); });
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        onLeaderFinished(code, static_cast<int>(status));
    });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart && !isFinal())
            finish(State::SetupFailed, QStringLiteral("cannot start %1: %2")
                                           .arg(m_spec.argv.first(), m_process->errorString()));
    });
    m_state = State::Running;
    m_startedAt = QDateTime::currentDateTimeUtc();
    m_process->start(QIODevice::ReadOnly);
    releaseInputs(); // the child got its copies at fork time
    if (isFinal())
        return; // FailedToStart was reported synchronously
    m_pid = m_process->processId();
    if (m_spec.timeoutMs > 0) {
        m_timeout = new QTimer(this);
        m_timeout->setSingleShot(true);
        connect(m_timeout, &QTimer::timeout, this, [this] {
            terminateGroup(QStringLiteral("timed out after %1 ms").arg(m_spec.timeoutMs),
                           State::TimedOut);
        });
        m_timeout->start(static_cast<int>(std::min<qint64>(m_spec.timeoutMs, INT_MAX)));
    }
    Q_EMIT started();
}

void BrokerJob::cancel() {
    if (m_state == State::Queued) {
        finish(State::Cancelled, QStringLiteral("cancelled before it started"));
        return;
    }
    if (m_state == State::Running)
        terminateGroup(QStringLiteral("cancelled"), State::Cancelled);
}

void BrokerJob::killNow() {
    if (m_state == State::Queued) {
        finish(State::Cancelled, QStringLiteral("the agent is shutting down"));
        return;
    }
    if (m_state != State::Running)
        return;
    if (!m_pendingState) {
        m_pendingState = State::Cancelled;
        m_pendingMessage = QStringLiteral("the agent is shutting down");
    }
    if (m_pid > 1)
        ::kill(static_cast<pid_t>(-m_pid), SIGKILL);
    if (m_process->state() != QProcess::NotRunning)
        m_process->waitForFinished(2000);
    // Blocking on purpose: at shutdown nothing may outlive the agent's last word.
    const QDeadlineTimer deadline(2000);
    while (groupAlive() && !deadline.hasExpired()) {
        ::kill(static_cast<pid_t>(-m_pid), SIGKILL);
        QThread::msleep(5);
    }
    finish(*m_pendingState, m_pendingMessage);
}

void BrokerJob::terminateGroup(const QString& why, State finalState) {
    if (m_pendingState || isFinal())
        return;
    m_pendingState = finalState;
    m_pendingMessage = why;
    if (m_timeout)
        m_timeout->stop();
    if (m_pid > 1)
        ::kill(static_cast<pid_t>(-m_pid), SIGTERM);
    m_grace = new QTimer(this);
    m_grace->setSingleShot(true);
    connect(m_grace, &QTimer::timeout, this, &BrokerJob::onGraceExpired);
    m_grace->start(m_spec.killGraceMs);
}

void BrokerJob::onGraceExpired() {
    if (m_pid > 1)
        ::kill(static_cast<pid_t>(-m_pid), SIGKILL);
    if (m_leaderDone)
        endGroupThenFinish(*m_pendingState, m_pendingMessage);
    // else: the leader's end (it got SIGKILL too) finishes the job
}

void BrokerJob::endGroupThenFinish(State state, const QString& message) {
    if (isFinal() || (m_reap && m_reap->isActive()))
        return;
    if (m_pid > 1)
        ::kill(static_cast<pid_t>(-m_pid), SIGKILL);
    if (!groupAlive()) {
        finish(state, message);
        return;
    }
    // SIGKILL is delivered asynchronously: the state becomes final once no member runs.
    m_reap = new QTimer(this);
    m_reapDeadline = QDeadlineTimer(kReapTimeoutMs);
    connect(m_reap, &QTimer::timeout, this, [this, state, message] {
        if (m_pid > 1)
            ::kill(static_cast<pid_t>(-m_pid), SIGKILL);
        if (!groupAlive()) {
            m_reap->stop();
            finish(state, message);
        } else if (m_reapDeadline.hasExpired()) {
            m_reap->stop();
            finish(state, message + QStringLiteral(" (some processes of the group did not exit "
                                                   "after SIGKILL)"));
        }
    });
    m_reap->start(kReapPollMs);
}

bool BrokerJob::groupAlive() const {
    if (m_pid <= 1 || ::kill(static_cast<pid_t>(-m_pid), 0) != 0)
        return false;
    // kill(2) also counts zombies waiting for their reaper; only running members matter.
    const QStringList entries =
        QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& entry : entries) {
        if (entry.isEmpty() || !entry.at(0).isDigit())
            continue;
        QFile stat(QStringLiteral("/proc/%1/stat").arg(entry));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray text = stat.read(1024);
        const int paren = text.lastIndexOf(')');
        if (paren < 0)
            continue;
        const QList<QByteArray> fields = text.mid(paren + 2).split(' ');
        if (fields.size() > 2 && fields[2].toLongLong() == m_pid && fields[0] != "Z" &&
            fields[0] != "X")
            return true;
    }
    return false;
}

void BrokerJob::onLeaderFinished(int exitCode, int exitStatus) {
    if (isFinal())
        return;
    m_leaderDone = true;
    readChannel(Stream::Stdout);
    readChannel(Stream::Stderr);
    if (exitStatus == QProcess::CrashExit)
        m_signal = exitCode; // Qt reports the terminating signal as the exit code
    else
        m_exitCode = exitCode;
    if (m_pendingState) {
        if (m_grace && m_grace->isActive() && groupAlive())
            return; // members that ignored SIGTERM get SIGKILL when the grace period ends
        if (m_grace)
            m_grace->stop();
        endGroupThenFinish(*m_pendingState, m_pendingMessage);
        return;
    }
    // What the leader left behind in its group ends with it.
    if (m_signal)
        endGroupThenFinish(State::Failed,
                           QStringLiteral("NPU workload was killed by signal %1").arg(*m_signal));
    else if (exitCode != 0)
        endGroupThenFinish(State::Failed,
                           QStringLiteral("NPU workload exited with code %1").arg(exitCode));
    else
        endGroupThenFinish(State::Completed, {});
}

void BrokerJob::finish(State state, const QString& message) {
    if (isFinal())
        return;
    if (m_timeout)
        m_timeout->stop();
    if (m_grace)
        m_grace->stop();
    if (m_reap)
        m_reap->stop();
    releaseInputs();
    m_state = state;
    m_message = message;
    m_finishedAt = QDateTime::currentDateTimeUtc();
    Q_EMIT finished();
}

void BrokerJob::releaseInputs() {
    for (BrokerInput& input : m_spec.inputs)
        input.close();
}

void BrokerJob::readChannel(Stream stream) {
    if (!m_process)
        return;
    m_process->setReadChannel(stream == Stream::Stdout ? QProcess::StandardOutput
                                                       : QProcess::StandardError);
    const QByteArray data = m_process->readAll();
    if (data.isEmpty())
        return;
    const qint64 room = m_spec.maxOutputBytes - m_kept;
    const QByteArray kept = room >= data.size() ? data : data.left(std::max<qint64>(room, 0));
    if (kept.size() < data.size()) {
        m_truncated = true;
        m_dropped += data.size() - kept.size();
    }
    if (kept.isEmpty())
        return;
    m_sizes[stream == Stream::Stdout ? 0 : 1] += kept.size();
    m_kept += kept.size();
    Q_EMIT output(stream, kept);
}

qint64 BrokerJob::streamSize(Stream stream) const {
    return m_sizes[stream == Stream::Stdout ? 0 : 1];
}

} // namespace runbox::npu
