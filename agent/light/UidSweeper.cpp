#include "agent/light/UidSweeper.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

namespace runbox::light {

namespace {

/// Reads /proc/<pid>/status into @p buffer; returns its length or −1.
ssize_t readStatus(int procFd, const char* pid, char* buffer, std::size_t capacity) {
    char path[300];
    std::snprintf(path, sizeof(path), "%s/status", pid);
    const int fd = ::openat(procFd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    const ssize_t got = ::read(fd, buffer, capacity - 1);
    ::close(fd);
    if (got >= 0)
        buffer[got] = '\0';
    return got;
}

const char* findLine(const char* text, const char* key) {
    const std::size_t keyLength = std::strlen(key);
    for (const char* line = text; line && *line;) {
        if (std::strncmp(line, key, keyLength) == 0)
            return line + keyLength;
        line = std::strchr(line, '\n');
        if (line)
            ++line;
    }
    return nullptr;
}

} // namespace

std::vector<pid_t> UidSweeper::findProcesses(const std::unordered_set<uid_t>& uids,
                                             std::unordered_set<uid_t>* seen) {
    std::vector<pid_t> found;
    const int procFd = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (procFd < 0)
        return found;
    DIR* dir = ::fdopendir(::dup(procFd));
    char status[4096];
    while (dir) {
        const dirent* entry = ::readdir(dir);
        if (!entry)
            break;
        if (entry->d_name[0] < '1' || entry->d_name[0] > '9')
            continue;
        if (readStatus(procFd, entry->d_name, status, sizeof(status)) <= 0)
            continue;
        const char* state = findLine(status, "State:");
        if (state) {
            while (*state == ' ' || *state == '\t')
                ++state;
            if (*state == 'Z' || *state == 'X')
                continue;
        }
        const char* uidLine = findLine(status, "Uid:");
        if (!uidLine)
            continue;
        char* cursor = const_cast<char*>(uidLine);
        for (int i = 0; i < 4; ++i) {
            const unsigned long uid = std::strtoul(cursor, &cursor, 10);
            if (uids.count(static_cast<uid_t>(uid))) {
                found.push_back(static_cast<pid_t>(std::atoi(entry->d_name)));
                if (seen)
                    seen->insert(static_cast<uid_t>(uid));
                break;
            }
        }
    }
    if (dir)
        ::closedir(dir);
    ::close(procFd);
    return found;
}

std::unordered_set<uid_t> UidSweeper::sweep(const std::unordered_set<uid_t>& uids, int maxPasses,
                                            int pauseMs) {
    std::unordered_set<uid_t> alive;
    for (int pass = 0; pass < maxPasses; ++pass) {
        alive.clear();
        const std::vector<pid_t> pids = findProcesses(uids, &alive);
        if (pids.empty())
            return {};
        for (pid_t pid : pids)
            ::kill(pid, SIGKILL);
        ::usleep(static_cast<useconds_t>(pauseMs) * 1000);
    }
    alive.clear();
    findProcesses(uids, &alive);
    return alive;
}

UidReclaimer::UidReclaimer(UidPool* pool, int maxPasses, int pauseMs)
    : m_pool(pool), m_maxPasses(maxPasses), m_pauseMs(pauseMs) {
    m_thread = std::thread([this] { run(); });
}

UidReclaimer::~UidReclaimer() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    m_thread.join();
}

void UidReclaimer::setQuarantineListener(QuarantineListener listener) {
    std::lock_guard lock(m_mutex);
    m_listener = std::move(listener);
}

void UidReclaimer::reclaim(uid_t uid) {
    {
        std::lock_guard lock(m_mutex);
        m_pending.push_back(uid);
    }
    m_wake.notify_one();
}

void UidReclaimer::flush() {
    std::unique_lock lock(m_mutex);
    m_flushing = true;
    m_wake.notify_all();
    m_idle.wait(lock, [this] { return m_pending.empty() && !m_busy; });
    m_flushing = false;
}

void UidReclaimer::run() {
    for (;;) {
        std::vector<uid_t> batch;
        QuarantineListener listener;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stopping || !m_pending.empty(); });
            if (m_pending.empty() && m_stopping)
                return;
            // Let the burst this uid belongs to arrive: one scan then confirms all of it.
            m_wake.wait_for(lock, std::chrono::milliseconds(kCoalesceMs),
                            [this] { return m_stopping || m_flushing; });
            batch.swap(m_pending);
            m_busy = true;
            listener = m_listener;
        }
        const std::unordered_set<uid_t> uids(batch.begin(), batch.end());
        const std::unordered_set<uid_t> alive = UidSweeper::sweep(uids, m_maxPasses, m_pauseMs);
        for (uid_t uid : batch) {
            if (alive.count(uid)) {
                const QString reason = QStringLiteral("processes of uid %1 survived %2 kill passes")
                                           .arg(uid)
                                           .arg(m_maxPasses);
                m_pool->quarantine(uid, reason);
                if (listener)
                    listener(uid, reason);
            } else {
                m_pool->release(uid);
            }
        }
        {
            std::lock_guard lock(m_mutex);
            m_busy = false;
        }
        m_idle.notify_all();
    }
}

} // namespace runbox::light
