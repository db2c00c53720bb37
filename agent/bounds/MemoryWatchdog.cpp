#include "agent/bounds/MemoryWatchdog.h"

#include "agent/bounds/SharedMemoryScan.h"

#include <QFile>
#include <QHash>

#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

namespace runbox::bounds {

namespace {

constexpr long kTmpfsMagic = 0x01021994; // TMPFS_MAGIC, linux/magic.h

/// Bytes in use on the tmpfs @p mount (statfs(2)); 0 when it cannot be read, is no tmpfs, or is
/// still the host's own mount.
qint64 usedBytesOf(const MemoryWatchdog::TmpfsMount& mount) {
    const QByteArray path = QFile::encodeName(mount.path);
    struct statfs fs {};
    if (::statfs(path.constData(), &fs) != 0 || fs.f_type != kTmpfsMagic)
        return 0;
    struct stat own {
    }, host{};
    if (::stat(path.constData(), &own) != 0)
        return 0;
    if (!mount.hostPath.isEmpty() &&
        ::stat(QFile::encodeName(mount.hostPath).constData(), &host) == 0 &&
        host.st_dev == own.st_dev)
        return 0;
    return qint64(fs.f_blocks - fs.f_bfree) * qint64(fs.f_bsize);
}

} // namespace

MemoryWatchdog::MemoryWatchdog(QObject* parent, QString procRoot)
    : QObject(parent), m_procRoot(procRoot), m_table(std::move(procRoot)) {
    m_timer.setSingleShot(true);
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, [this] { scanDue(); });
    m_clock.start();
    m_cpus = int(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
}

int MemoryWatchdog::intervalFor(qint64 usedBytes, qint64 limitBytes, int cpus) {
    if (limitBytes <= 0)
        return intervalForFraction(0);
    const double fraction = double(usedBytes) / double(limitBytes);
    if (fraction >= 0.5)
        return intervalForFraction(fraction);
    // Half the time the headroom takes to fault in at the assumed rate, on the 100 ms grid (so
    // the watches far from their limits are read in the same scans).
    const double faultBytesPerMs = double(kFaultBytesPerSecondPerCpu) * std::max(1, cpus) / 1000.0;
    const qint64 ms = qint64(double(limitBytes - usedBytes) / faultBytesPerMs / 2.0);
    return int(std::clamp<qint64>(ms / 100 * 100, 100, kMaxIntervalMs));
}

int MemoryWatchdog::intervalForFraction(double fraction) {
    if (fraction < 0.5)
        return 100;
    if (fraction < 0.75)
        return 50;
    if (fraction < 0.9)
        return 20;
    return 10;
}

int MemoryWatchdog::watch(Watch watch) {
    const int handle = m_nextHandle++;
    State state;
    state.watch = std::move(watch);
    m_watches.emplace(handle, std::move(state));
    m_timer.start(0); // the first scan on the next event-loop turn
    return handle;
}

MemoryWatchdog::Usage MemoryWatchdog::unwatch(int handle) {
    const auto it = m_watches.find(handle);
    if (it == m_watches.end())
        return {};
    const Usage last = it->second.usage;
    m_watches.erase(it);
    if (m_watches.empty())
        m_timer.stop();
    return last;
}

UnixSocketMemory* MemoryWatchdog::unixSockets() {
    if (!m_unixSockets)
        m_unixSockets = std::make_unique<UnixSocketMemory>(m_procRoot);
    return m_unixSockets.get();
}

QHash<MemoryWatchdog::State*, UnixSocketMemory::Charge>
MemoryWatchdog::unixSocketBytes(const QHash<State*, QList<pid_t>>& members) {
    QHash<State*, UnixSocketMemory::Charge> bytes;
    QHash<quint64, pid_t> namespaces; // network namespace inode -> a member in it
    QHash<uid_t, State*> byUid;
    QHash<quint64, State*> byNamespace; // a strong sandbox's own network namespaces
    for (auto it = members.cbegin(); it != members.cend(); ++it) {
        const Watch& w = it.key()->watch;
        if (!w.countUnixSockets)
            continue;
        const bool byPidNamespace = w.members.by == Membership::By::PidNamespace;
        if (!byPidNamespace)
            byUid.insert(uid_t(w.members.id), it.key());
        // A member may enter a namespace of its own (unshare(2)) at any time: read again every
        // kNetNamespaceRecheckScans scans (each read costs about as much as its statm).
        for (const pid_t pid : it.value())
            if (const quint64 ns = m_table.networkNamespaceOf(pid, kNetNamespaceRecheckScans)) {
                namespaces.insert(ns, pid);
                if (byPidNamespace)
                    byNamespace.insert(ns, it.key());
            }
    }
    if ((byUid.isEmpty() && byNamespace.isEmpty()) || !unixSockets()->available())
        return bytes;
    const QSet<uid_t> uids(byUid.keyBegin(), byUid.keyEnd());
    const QSet<quint64> privateNamespaces(byNamespace.keyBegin(), byNamespace.keyEnd());
    QHash<quint64, UnixSocketMemory::Charge> perNamespace;
    const QHash<uid_t, UnixSocketMemory::Charge> charges =
        m_unixSockets->measure(namespaces, uids, privateNamespaces, &perNamespace);
    for (auto it = charges.cbegin(); it != charges.cend(); ++it)
        bytes[byUid.value(it.key())].add(it.value());
    for (auto it = perNamespace.cbegin(); it != perNamespace.cend(); ++it)
        bytes[byNamespace.value(it.key())].add(it.value());
    return bytes;
}

MemoryWatchdog::Usage MemoryWatchdog::usage(int handle) const {
    const auto it = m_watches.find(handle);
    return it == m_watches.end() ? Usage{} : it->second.usage;
}

void MemoryWatchdog::readHostSharedMemory() {
    struct sysinfo info {};
    if (::sysinfo(&info) != 0)
        return;
    m_unexplainedBytes = qint64(info.sharedram) * qint64(qMax(1u, info.mem_unit));
    for (const auto& [handle, state] : m_watches)
        m_unexplainedBytes -= state.tmpfsBytes;
    for (auto& [handle, state] : m_watches)
        state.unexplainedLowBytes = qMin(state.unexplainedLowBytes, m_unexplainedBytes);
}

void MemoryWatchdog::measureObjects(State* state, const QList<pid_t>& members) {
    const qint64 limit = state->watch.limitBytes;
    const auto counted = [&](qint64 objects) {
        return state->anonBytes + state->tmpfsBytes + qMax(state->mappedShmemBytes, objects);
    };
    // Growth no counter explains may be this watch's objects; past half its headroom it could
    // take it over the limit before the next look, so they are looked for now.
    const qint64 lookAt = limit > 0 ? qMax(kSharedMemoryTriggerBytes,
                                           (limit - counted(state->usage.sharedObjectBytes)) / 2)
                                    : kUnlimitedLookBytes;
    bool look = state->lookForObjects || m_unexplainedBytes - state->unexplainedLowBytes > lookAt;
    // The objects it holds are sized again (a stat(2) each) when shared memory was freed on the
    // host (one of them may be gone: a stale size would count it on) and while the watch is
    // past half its limit; otherwise their last sizes stand, and growth is the look's to see.
    const bool resize =
        !look && (m_unexplainedBytes < state->unexplainedAtSizeBytes - kSharedMemoryTriggerBytes ||
                  (limit > 0 && counted(state->usage.sharedObjectBytes) > limit / 2));
    if (resize) {
        const qint64 known = SharedMemoryScan::resize(m_table.procFd(), &state->objects);
        look = known < 0; // one went out of reach: only a look can tell what is held
        state->usage.sharedObjectBytes = qMax<qint64>(0, known);
    }
    if (look) {
        SharedMemoryScan scan(m_table.procFd());
        for (const pid_t pid : members)
            scan.add(pid, m_table.memoryTaskOf(pid));
        ++m_sharedMemoryScans;
        state->objects = scan.result().objects;
        state->unsizedProcesses = scan.result().unsized;
        state->usage.sharedObjectBytes = scan.result().bytes;
        state->lookForObjects = false;
        state->unexplainedLowBytes = m_unexplainedBytes;
        state->mappedShmemHighBytes = state->mappedShmemBytes;
    }
    if (!look && !resize)
        return;
    state->unexplainedAtSizeBytes = m_unexplainedBytes;
    // A process mapping an object that could not be sized: its mapped shared pages count (read
    // whatever statm's shared count), so they are not hidden behind the objects' sum.
    state->unsizedShmemBytes = 0;
    for (const pid_t pid : std::as_const(state->unsizedProcesses)) {
        ProcessTable::Memory memory;
        if (m_table.memoryOf(pid, -1, &memory))
            state->unsizedShmemBytes += memory.shmemBytes;
    }
}

qint64 MemoryWatchdog::sharedBytesOf(const State& state, qint64 mappedBytes) {
    // An object's mapped pages are in its processes' RssShmem and in its st_blocks: the larger
    // of the two sums counts, so a mapped memfd is not counted twice and an unmapped one is.
    return qMax(mappedBytes, state.usage.sharedObjectBytes + state.unsizedShmemBytes);
}

int MemoryWatchdog::scan(bool onlyDue) {
    if (m_watches.empty())
        return 0;
    const qint64 now = m_clock.elapsed();
    // A timer fires a little early or late: what is due within 5 ms is measured now.
    const auto due = [&](const State& state) { return !onlyDue || state.dueAtMs <= now + 5; };
    QHash<uid_t, State*> byUid;
    QHash<quint64, State*> byNamespace;
    for (auto& [handle, state] : m_watches) {
        if (!due(state))
            continue;
        if (state.watch.members.by == Membership::By::Uid)
            byUid.insert(uid_t(state.watch.members.id), &state);
        else
            byNamespace.insert(state.watch.members.id, &state);
        state.usage.currentBytes = 0;
        state.usage.processes = 0;
        state.anonBytes = 0;
        state.mappedShmemBytes = 0;
        state.tmpfsBytes = 0;
        for (const TmpfsMount& mount : std::as_const(state.watch.tmpfsMounts))
            state.tmpfsBytes += usedBytesOf(mount);
    }
    if (byUid.isEmpty() && byNamespace.isEmpty()) {
        schedule();
        return 0;
    }
    readHostSharedMemory();
    const int seen = m_table.refresh(!byNamespace.isEmpty(), !byUid.isEmpty());
    QHash<State*, QList<pid_t>> members;
    for (auto it = m_table.entries().cbegin(); it != m_table.entries().cend(); ++it) {
        State* owner = byUid.value(it->uid, nullptr);
        if (!owner && it->pidNamespace != 0)
            owner = byNamespace.value(it->pidNamespace, nullptr);
        if (!owner)
            continue;
        ProcessTable::Memory memory;
        if (!m_table.memoryOf(it.key(), kShmemProbeBytes, &memory))
            continue;
        owner->anonBytes += memory.anonBytes;
        owner->mappedShmemBytes += memory.shmemBytes;
        ++owner->usage.processes;
        members[owner].append(it.key());
    }
    for (auto& [handle, state] : m_watches) {
        if (!due(state))
            continue;
        measureObjects(&state, members.value(&state));
        // Mapped shared pages that went away may be an object unmapped and still held, or
        // freed while another hid as much: that much more of the host's growth is unexplained.
        const qint64 drop = state.mappedShmemHighBytes - state.mappedShmemBytes;
        if (drop > kSharedMemoryTriggerBytes)
            for (auto& [other, watched] : m_watches)
                watched.unexplainedLowBytes -= drop;
        state.mappedShmemHighBytes = drop > kSharedMemoryTriggerBytes
                                         ? state.mappedShmemBytes
                                         : qMax(state.mappedShmemHighBytes, state.mappedShmemBytes);
        state.usage.currentBytes = state.anonBytes + sharedBytesOf(state, state.mappedShmemBytes);
    }
    // statm counts a page shared by several processes (copy-on-write after fork) once per
    // process: a forked pool of 4 over 200 MiB summed to 811 MiB. Past half its limit, a tree of
    // several processes is measured again by proportional shares, which sum to what it holds.
    for (auto& [handle, state] : m_watches) {
        Usage& u = state.usage;
        if (!due(state) || state.watch.limitBytes <= 0 || u.processes < 2 ||
            u.currentBytes <= state.watch.limitBytes / 2)
            continue;
        ProcessTable::Memory proportional;
        bool complete = true;
        for (const pid_t pid : members.value(&state)) {
            ProcessTable::Memory share;
            complete = complete && m_table.proportionalMemoryOf(pid, &share);
            proportional.anonBytes += share.anonBytes;
            proportional.shmemBytes += share.shmemBytes;
        }
        if (complete)
            u.currentBytes =
                std::min(u.currentBytes,
                         proportional.anonBytes + sharedBytesOf(state, proportional.shmemBytes));
    }
    const QHash<State*, UnixSocketMemory::Charge> sockets = unixSocketBytes(members);
    std::vector<std::pair<std::function<void(const Usage&)>, Usage>> calls;
    for (auto& [handle, state] : m_watches) {
        if (!due(state))
            continue;
        Usage& u = state.usage;
        u.currentBytes += state.tmpfsBytes;
        const UnixSocketMemory::Charge charge = sockets.value(&state);
        u.unixSocketBytes = charge.total();
        u.unixSocketEstimatedBytes = charge.estimatedBytes;
        u.currentBytes += u.unixSocketBytes;
        u.peakBytes = qMax(u.peakBytes, u.currentBytes);
        u.peakProcesses = qMax(u.peakProcesses, u.processes);
        state.dueAtMs = now + intervalFor(u.currentBytes, state.watch.limitBytes, m_cpus);
        if (state.watch.limitBytes <= 0)
            continue;
        if (!u.exceeded && u.currentBytes > state.watch.limitBytes) {
            u.exceeded = true;
            if (state.watch.exceeded)
                calls.emplace_back(state.watch.exceeded, u);
        }
    }
    schedule();
    for (const auto& [call, usage] : calls)
        call(usage); // after the loop: a callback may unwatch
    return seen;
}

void MemoryWatchdog::schedule() {
    if (m_watches.empty()) {
        m_timer.stop();
        return;
    }
    qint64 next = std::numeric_limits<qint64>::max();
    for (const auto& [handle, state] : m_watches)
        next = std::min(next, state.dueAtMs);
    m_timer.start(int(std::clamp<qint64>(next - m_clock.elapsed(), 0, kMaxIntervalMs)));
}

} // namespace runbox::bounds
