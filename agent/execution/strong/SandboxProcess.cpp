#include "agent/execution/strong/SandboxProcess.h"

#include "agent/bounds/ProcessTable.h"
#include "agent/execution/ChildPipes.h"
#include "agent/execution/strong/SandboxSpawn.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSocketNotifier>
#include <QTimer>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

namespace runbox::execution {

namespace {

constexpr qint64 kReadBudget = 16 * 64 * 1024; ///< per pipe and wake-up
constexpr int kNamespaceTeardownMs = 10000;    ///< longest wait for the namespace init to end

void closeFd(int& fd) {
    if (fd >= 0)
        ::close(fd);
    fd = -1;
}

void setNonBlocking(int fd) {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

int pidfdOpen(pid_t pid) {
    return int(::syscall(SYS_pidfd_open, pid, 0));
}

/// True when @p pid is the init (pid 1) of a PID namespace below ours: the last `NSpid:` field of
/// /proc/<pid>/status (proc(5)) is 1.
bool isNamespaceInit(pid_t pid) {
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return false;
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith("NSpid:")) {
            const QList<QByteArray> ids = line.mid(6).simplified().split(' ');
            return ids.size() >= 2 && ids.last() == "1";
        }
    return false;
}

/// The parent of @p pid from /proc/<pid>/stat (proc(5), field 4), or 0.
pid_t parentOf(pid_t pid) {
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray line = stat.readAll();
    const qsizetype close = line.lastIndexOf(')'); // the command name may hold spaces
    const QList<QByteArray> fields = line.mid(close + 2).split(' ');
    return fields.size() > 1 ? pid_t(fields.at(1).toLong()) : 0;
}

/// True when @p ancestor is @p pid's parent or grandparent (the guard, then bwrap, then the
/// namespace init).
bool descendsFrom(pid_t pid, pid_t ancestor) {
    const pid_t parent = parentOf(pid);
    return parent > 0 && (parent == ancestor || parentOf(parent) == ancestor);
}

int pidfdSendSignal(int pidfd, int signal) {
    return int(::syscall(SYS_pidfd_send_signal, pidfd, signal, nullptr, 0));
}

} // namespace

SandboxProcess::SandboxProcess(QObject* parent)
    : QObject(parent), m_pipes(new ChildPipes(kReadBudget, this)) {
    connect(m_pipes, &ChildPipes::output, this, [this](int stream, const QByteArray& data) {
        if (stream == ChildPipes::Stdout)
            Q_EMIT stdoutData(data);
        else
            Q_EMIT stderrData(data);
    });
    connect(m_pipes, &ChildPipes::streamClosed, this, [this] { maybeFinish(); });
}

SandboxProcess::~SandboxProcess() {
    if (m_pid > 0 && !m_reaped) {
        if (m_guarded) {
            // Let the guard kill the sandbox (orphans included); the group only as a fallback.
            ::kill(m_pid, SIGTERM);
            for (int waited = 0; waited < kGuardGraceMs; waited += 10) {
                if (::waitpid(m_pid, nullptr, WNOHANG) == m_pid) {
                    m_reaped = true;
                    break;
                }
                ::usleep(10 * 1000);
            }
        }
        if (!m_reaped) {
            ::kill(-m_pid, SIGKILL);
            ::waitpid(m_pid, nullptr, 0);
        }
    }
    closeFd(m_statusFd);
    closeFd(m_setupStatusFd);
    closeFd(m_pidfd);
    closeFd(m_nsInitPidfd);
}

bool SandboxProcess::start(const sandbox::SandboxLaunch& launch, const QByteArray& stdinData,
                           quint64 maxProcesses, QString* error, const QString& guardPath) {
    SpawnedSandbox spawned;
    if (!spawnSandbox(launch, maxProcesses, guardPath, &spawned, error))
        return false;
    m_guarded = !guardPath.isEmpty();
    const pid_t pid = spawned.pid;
    m_pid = pid;
    m_statusFd = spawned.statusFd;
    m_setupStatusFd = spawned.setupStatusFd;
    m_exit.setupStatusExpected = launch.setupStatusFd >= 0;
    m_pidfd = pidfdOpen(pid);
    for (int fd : {m_statusFd, m_setupStatusFd})
        if (fd >= 0)
            setNonBlocking(fd);
    m_pipes->adopt(spawned.stdinFd, stdinData, spawned.stdoutFd, spawned.stderrFd);
    m_statusNotifier = new QSocketNotifier(m_statusFd, QSocketNotifier::Read, this);
    connect(m_statusNotifier, &QSocketNotifier::activated, this, &SandboxProcess::readStatus);
    if (m_setupStatusFd >= 0) {
        m_setupStatusNotifier = new QSocketNotifier(m_setupStatusFd, QSocketNotifier::Read, this);
        connect(m_setupStatusNotifier, &QSocketNotifier::activated, this,
                &SandboxProcess::readSetupStatus);
    }
    if (m_pidfd >= 0) {
        m_pidNotifier = new QSocketNotifier(m_pidfd, QSocketNotifier::Read, this);
        connect(m_pidNotifier, &QSocketNotifier::activated, this, &SandboxProcess::onPidfdReadable);
    } else {
        // No pidfd (kernel < 5.3): poll for the exit.
        auto* poll = new QTimer(this);
        connect(poll, &QTimer::timeout, this, &SandboxProcess::onPidfdReadable);
        poll->start(20);
    }
    return true;
}

void SandboxProcess::readStatus() {
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(m_statusFd, buf, sizeof buf);
        if (n > 0) {
            m_status.append(buf, n);
            continue;
        }
        if (n < 0 && (errno == EINTR))
            continue;
        if (n < 0 && errno == EAGAIN)
            break;
        delete m_statusNotifier;
        m_statusNotifier = nullptr;
        closeFd(m_statusFd);
        break;
    }
    // bwrap writes one JSON object per line: {"child-pid": N, …} then {"exit-code": N}.
    for (const QByteArray& line : m_status.split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o.contains(QLatin1String("child-pid")) && m_childPid <= 0) {
            m_childPid = pid_t(o.value(QLatin1String("child-pid")).toInteger());
            watchNamespaceInit();
            Q_EMIT sandboxChildKnown(m_childPid);
        }
        if (o.contains(QLatin1String("exit-code")))
            m_exit.commandStarted = true;
    }
}

void SandboxProcess::readSetupStatus() {
    char buf[1024];
    for (;;) {
        const ssize_t n = ::read(m_setupStatusFd, buf, sizeof buf);
        if (n > 0) {
            // One line is all a helper writes; anything longer is cut at 4 KiB.
            if (m_exit.setupStatus.size() < 4096)
                m_exit.setupStatus.append(buf, qsizetype(n));
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        break;
    }
    delete m_setupStatusNotifier;
    m_setupStatusNotifier = nullptr;
    closeFd(m_setupStatusFd);
}

bool SandboxProcess::commandForked() const {
    if (m_exit.setupStatusExpected && !m_exit.setupStatus.startsWith("ready"))
        return false;
    if (m_exit.commandStarted)
        return true;
    if (m_childPid <= 0)
        return false;
    QFile children(QStringLiteral("/proc/%1/task/%1/children").arg(m_childPid));
    return children.open(QIODevice::ReadOnly) && !children.readAll().trimmed().isEmpty();
}

void SandboxProcess::watchNamespaceInit() {
    // bwrap reports the child's pid right after clone(2), while that child is alive. The checks
    // after the open guard against a pid that was already reused: the process must be a PID
    // namespace init below our own launcher, and still alive afterwards (a null signal through
    // the pidfd), so the process checked is the one the pidfd holds. killGroup() signals it.
    const int fd = m_childPid > 0 ? pidfdOpen(m_childPid) : -1;
    if (fd < 0)
        return;
    if (!isNamespaceInit(m_childPid) || !descendsFrom(m_childPid, m_pid) ||
        pidfdSendSignal(fd, 0) != 0) {
        ::close(fd);
        return;
    }
    m_nsInitPidfd = fd;
    m_nsInitNotifier = new QSocketNotifier(fd, QSocketNotifier::Read, this);
    connect(m_nsInitNotifier, &QSocketNotifier::activated, this, [this] {
        stopWatchingNamespaceInit();
        maybeFinish();
    });
}

void SandboxProcess::stopWatchingNamespaceInit() {
    delete m_nsInitNotifier;
    m_nsInitNotifier = nullptr;
    closeFd(m_nsInitPidfd);
}

void SandboxProcess::onPidfdReadable() {
    if (m_reaped)
        return;
    int wstatus = 0;
    rusage usage{};
    const pid_t r = ::wait4(m_pid, &wstatus, WNOHANG, &usage);
    if (r != m_pid)
        return;
    m_reaped = true;
    const auto ms = [](const timeval& t) { return qint64(t.tv_sec) * 1000 + t.tv_usec / 1000; };
    // A killed sandbox's processes are reaped by its namespace's teardown, whose CPU no rusage
    // gets (ProcessTable::cpuOfPidNamespace): what they had used just before the kill counts.
    m_exit.cpuUserMs = std::max(ms(usage.ru_utime), m_cpuBeforeKill.userMs);
    m_exit.cpuSystemMs = std::max(ms(usage.ru_stime), m_cpuBeforeKill.systemMs);
    delete m_pidNotifier;
    m_pidNotifier = nullptr;
    m_exit.exited = WIFEXITED(wstatus);
    m_exit.exitCode = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
    m_exit.signal = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
    // Anything still in the group: the namespace init among them, which would otherwise wait for
    // orphans (its --die-with-parent signal would follow, but asynchronously).
    ::kill(-m_pid, SIGKILL);
    if (m_statusFd >= 0)
        readStatus();
    if (m_setupStatusFd >= 0)
        readSetupStatus();
    const qsizetype newline = m_exit.setupStatus.indexOf('\n');
    if (newline >= 0)
        m_exit.setupStatus.truncate(newline);
    if (m_nsInitPidfd >= 0)
        QTimer::singleShot(kNamespaceTeardownMs, this, [this] {
            stopWatchingNamespaceInit();
            maybeFinish();
        });
    if (m_pipes->isPaused())
        setReadingPaused(false);
    // Output of a process that escaped into another group could keep a pipe open: give the
    // pipes a short grace period, then finish regardless.
    auto* drain = new QTimer(this);
    drain->setInterval(1000);
    connect(drain, &QTimer::timeout, this, [this, drain] {
        if (m_pipes->isPaused())
            return; // the consumer is slow, not the producer: keep every byte
        drain->stop();
        m_pipes->close(ChildPipes::Stdout);
        m_pipes->close(ChildPipes::Stderr);
        maybeFinish();
    });
    drain->start();
    for (int i : {ChildPipes::Stdout, ChildPipes::Stderr})
        m_pipes->drain(i, kReadBudget);
    maybeFinish();
}

void SandboxProcess::maybeFinish() {
    if (m_finishedEmitted || !m_reaped || m_pipes->anyOpen() || m_nsInitPidfd >= 0)
        return;
    m_finishedEmitted = true;
    Q_EMIT finished(m_exit);
}

void SandboxProcess::killGroup() {
    if (m_pid <= 0 || m_reaped)
        return;
    sampleCpuBeforeKill();
    // The namespace init first, directly: its death kills every process of the namespace
    // (pid_namespaces(7)) at once, where the guard's way (a signal, a wake-up, a walk of its
    // children, bwrap's death, then the init's parent-death signal) let a fast writer put tens
    // of MiB past a workspace quota on a quiet host (docs/bounds.md "Disk").
    if (m_nsInitPidfd >= 0)
        pidfdSendSignal(m_nsInitPidfd, SIGKILL);
    if (!m_guarded) {
        ::kill(-m_pid, SIGKILL);
        return;
    }
    ::kill(m_pid, SIGTERM);
    QTimer::singleShot(kGuardGraceMs, this, [this] {
        if (!m_reaped)
            ::kill(-m_pid, SIGKILL); // the guard is stuck: the group at least
    });
}

void SandboxProcess::sampleCpuBeforeKill() {
    // The namespace of the init watched since bwrap named it (a pid that was reused meanwhile
    // is no namespace init, and the agent's own namespace is refused by the table).
    if (m_nsInitPidfd < 0 || !isNamespaceInit(m_childPid))
        return;
    const auto cpu =
        bounds::ProcessTable::cpuOfPidNamespace(bounds::ProcessTable::pidNamespaceOf(m_childPid));
    m_cpuBeforeKill.userMs = std::max(m_cpuBeforeKill.userMs, cpu.userMs);
    m_cpuBeforeKill.systemMs = std::max(m_cpuBeforeKill.systemMs, cpu.systemMs);
}

void SandboxProcess::setReadingPaused(bool paused) {
    m_pipes->setPaused(paused);
    if (!paused) {
        QTimer::singleShot(0, this, [this] {
            for (int i : {ChildPipes::Stdout, ChildPipes::Stderr})
                m_pipes->drain(i, kReadBudget);
        });
    }
}

} // namespace runbox::execution
