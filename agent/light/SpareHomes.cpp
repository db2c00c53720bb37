#include "agent/light/SpareHomes.h"

#include "agent/light/HomeDirectory.h"
#include "shared/Crypto.h"

#include <cerrno>
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace runbox::light {

namespace {
constexpr char kPrefix[] = ".spare-";
constexpr int kBackgroundNice = 10; ///< added to the thread's nice value
} // namespace

SpareHomes::SpareHomes(int rootFd, int target)
    : m_rootFd(::fcntl(rootFd, F_DUPFD_CLOEXEC, 0)), m_target(target) {
    if (m_rootFd >= 0 && m_target > 0)
        m_thread = std::thread([this] { run(); });
}

SpareHomes::~SpareHomes() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
    QString ignored;
    for (const QByteArray& name : m_ready)
        HomeDirectory::remove(m_rootFd, name, false, &ignored);
    if (m_rootFd >= 0)
        ::close(m_rootFd);
}

bool SpareHomes::isSpareName(const QByteArray& name) {
    const QByteArray prefix(kPrefix);
    if (name.size() != prefix.size() + 16 || !name.startsWith(prefix))
        return false;
    for (qsizetype i = prefix.size(); i < name.size(); ++i) {
        const char c = name.at(i);
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    }
    return true;
}

int SpareHomes::take(uid_t uid, gid_t gid, QByteArray* name) {
    QByteArray spare;
    {
        std::lock_guard lock(m_mutex);
        if (m_ready.empty())
            return -1;
        spare = m_ready.back();
        m_ready.pop_back();
    }
    const int fd =
        ::openat(m_rootFd, spare.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const bool owned = fd >= 0 && ::fchownat(fd, ".tmp", uid, gid, AT_SYMLINK_NOFOLLOW) == 0 &&
                       ::fchown(fd, uid, gid) == 0;
    const int pathFd = owned ? ::openat(fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
    if (fd >= 0)
        ::close(fd);
    if (pathFd < 0) {
        QString ignored;
        HomeDirectory::remove(m_rootFd, spare, false, &ignored);
    }
    m_wake.notify_one(); // after our syscalls: the refill's mkdir then does not delay them
    if (pathFd >= 0)
        *name = spare;
    return pathFd;
}

bool SpareHomes::makeOne(QByteArray* name) {
    *name = crypto::randomBytes(8).toHex();
    if (::mkdirat(m_rootFd, name->constData(), 0700) != 0)
        return false;
    const int fd =
        ::openat(m_rootFd, name->constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const bool made = fd >= 0 && ::mkdirat(fd, ".tmp", 0700) == 0;
    if (fd >= 0)
        ::close(fd);
    if (!made) {
        QString ignored;
        HomeDirectory::remove(m_rootFd, *name, false, &ignored);
    }
    return made;
}

void SpareHomes::run() {
    const pid_t tid = pid_t(::syscall(SYS_gettid));
    errno = 0;
    const int nice = ::getpriority(PRIO_PROCESS, id_t(tid));
    if (errno == 0)
        ::setpriority(PRIO_PROCESS, id_t(tid), nice + kBackgroundNice);
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [this] { return m_stopping || int(m_ready.size()) < m_target; });
        if (m_stopping)
            return;
        lock.unlock();
        QByteArray name;
        const bool made = makeOne(&name);
        lock.lock();
        if (made)
            m_ready.push_back(name);
        else if (m_wake.wait_for(lock, std::chrono::seconds(1), [this] { return m_stopping; }))
            return; // a full disk or a vanished root: try again later, never spin
    }
}

} // namespace runbox::light
