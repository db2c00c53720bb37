#include "agent/bounds/ExecutionCgroup.h"

#include "agent/bounds/CgroupFile.h"

#include <QDir>
#include <QFile>
#include <QThread>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox::bounds {

namespace {

constexpr qint64 kCpuPeriodUs = 100000; // cpu.max's default period (cgroup-v2.rst "cpu.max")
constexpr int kKillRounds = 50; // fallback kill: rounds of 10 ms until cgroup.procs is empty

QByteArray limitValue(qint64 value) {
    return value > 0 ? QByteArray::number(value) : QByteArrayLiteral("max");
}

QString errnoText(const QString& path, int err) {
    return QStringLiteral("%1: %2").arg(path, QString::fromLocal8Bit(std::strerror(err)));
}

} // namespace

QString ExecutionCgroup::nameFor(const QString& executionId) {
    QString safe;
    for (const QChar c : executionId)
        if ((c >= QLatin1Char('a') && c <= QLatin1Char('z')) ||
            (c >= QLatin1Char('A') && c <= QLatin1Char('Z')) ||
            (c >= QLatin1Char('0') && c <= QLatin1Char('9')) || c == QLatin1Char('_') ||
            c == QLatin1Char('-'))
            safe += c;
    return QStringLiteral("runbox-ex-") + safe;
}

ExecutionCgroup::DirectoryOps ExecutionCgroup::DirectoryOps::kernel() {
    return {[](const QString& d) { return ::mkdir(QFile::encodeName(d).constData(), 0755) == 0; },
            [](const QString& d) { return ::rmdir(QFile::encodeName(d).constData()) == 0; }};
}

ExecutionCgroup::ExecutionCgroup(QString directory, DirectoryOps ops)
    : m_directory(std::move(directory)), m_ops(std::move(ops)) {
    m_directoryFd =
        ::open(QFile::encodeName(m_directory).constData(), O_PATH | O_DIRECTORY | O_CLOEXEC);
}

ExecutionCgroup::~ExecutionCgroup() {
    if (m_directoryFd >= 0)
        ::close(m_directoryFd);
}

QString ExecutionCgroup::file(const char* name) const {
    return m_directory + QLatin1Char('/') + QLatin1String(name);
}

std::unique_ptr<ExecutionCgroup> ExecutionCgroup::create(const QString& parent,
                                                         const QString& executionId,
                                                         const ResourceLimits& limits,
                                                         QString* error, DirectoryOps ops) {
    const QString directory = parent + QLatin1Char('/') + nameFor(executionId);
    if (!ops.make(directory)) {
        if (error)
            *error = errnoText(directory, errno);
        return nullptr;
    }
    std::unique_ptr<ExecutionCgroup> cgroup(new ExecutionCgroup(directory, std::move(ops)));
    struct Setting {
        const char* file;
        QByteArray value;
        bool wanted;
    };
    const QByteArray cpuMax =
        limits.maxCpuCores > 0
            ? QByteArray::number(qMax<qint64>(1000, qint64(limits.maxCpuCores * kCpuPeriodUs))) +
                  ' ' + QByteArray::number(kCpuPeriodUs)
            : QByteArrayLiteral("max");
    const Setting settings[] = {
        {"memory.max", limitValue(limits.memoryBytes), true},
        {"memory.swap.max", limits.swap ? QByteArrayLiteral("max") : QByteArrayLiteral("0"),
         limits.memoryBytes > 0},
        {"memory.oom.group", QByteArrayLiteral("1"), true},
        {"pids.max", limitValue(limits.maxProcesses), true},
        {"cpu.weight", QByteArray::number(qBound(1, limits.cpuWeight, 10000)),
         limits.cpuWeight > 0},
        {"cpu.max", cpuMax, limits.maxCpuCores > 0},
    };
    for (const Setting& s : settings) {
        if (!s.wanted)
            continue;
        QString writeError;
        if (!cgroupfile::write(cgroup->file(s.file), s.value, &writeError)) {
            if (error)
                *error = writeError;
            cgroup->remove();
            return nullptr;
        }
    }
    return cgroup;
}

bool ExecutionCgroup::addProcess(pid_t pid, QString* error) {
    return cgroupfile::write(file("cgroup.procs"), QByteArray::number(pid), error);
}

void ExecutionCgroup::sample() {
    m_sampledMemory = qMax(m_sampledMemory, cgroupfile::singleValue(file("memory.current")));
    m_sampledProcesses = qMax(m_sampledProcesses, cgroupfile::singleValue(file("pids.current")));
}

ResourceUsage ExecutionCgroup::usage() const {
    ResourceUsage u;
    const qint64 peak = cgroupfile::singleValue(file("memory.peak"));
    u.peakMemoryBytes =
        qMax(peak, qMax(m_sampledMemory, cgroupfile::singleValue(file("memory.current"))));
    const QByteArray cpu = cgroupfile::read(file("cpu.stat"));
    const qint64 user = cgroupfile::keyedValue(cpu, "user_usec");
    const qint64 system = cgroupfile::keyedValue(cpu, "system_usec");
    u.cpuUserMs = user >= 0 ? user / 1000 : -1;
    u.cpuSystemMs = system >= 0 ? system / 1000 : -1;
    u.peakProcesses = qMax(cgroupfile::singleValue(file("pids.peak")),
                           qMax(m_sampledProcesses, cgroupfile::singleValue(file("pids.current"))));
    u.memoryExceeded =
        cgroupfile::keyedValue(cgroupfile::read(file("memory.events")), "oom_kill") > 0;
    return u;
}

bool ExecutionCgroup::isPopulated() const {
    return cgroupfile::keyedValue(cgroupfile::read(file("cgroup.events")), "populated") == 1;
}

void ExecutionCgroup::killAll() {
    if (QFile::exists(file("cgroup.kill")) && cgroupfile::write(file("cgroup.kill"), "1", nullptr))
        return;
    const bool frozen = cgroupfile::write(file("cgroup.freeze"), "1", nullptr);
    for (int round = 0; round < kKillRounds; ++round) {
        const QByteArray procs = cgroupfile::read(file("cgroup.procs")).trimmed();
        if (procs.isEmpty())
            break;
        for (const QByteArray& pid : procs.split('\n'))
            if (const qint64 n = pid.trimmed().toLongLong(); n > 1)
                ::kill(pid_t(n), SIGKILL);
        QThread::msleep(10);
    }
    if (frozen)
        cgroupfile::write(file("cgroup.freeze"), "0", nullptr);
}

bool ExecutionCgroup::remove(QString* error) {
    if (m_ops.remove(m_directory) || errno == ENOENT)
        return true;
    if (error)
        *error = errnoText(m_directory, errno);
    return false;
}

QStringList ExecutionCgroup::sweep(const QString& parent, QStringList* failed, DirectoryOps ops) {
    QStringList removed;
    const QStringList names =
        QDir(parent).entryList({QStringLiteral("runbox-ex-*")}, QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& name : names) {
        ExecutionCgroup left(parent + QLatin1Char('/') + name, ops);
        left.killAll();
        bool gone = false;
        for (int round = 0; round < kKillRounds && !gone; ++round) {
            gone = left.remove();
            if (!gone)
                QThread::msleep(10);
        }
        if (gone)
            removed << name;
        else if (failed)
            failed->append(name);
    }
    return removed;
}

} // namespace runbox::bounds
