#include "agent/http/UnixListenSocket.h"

#include "agent/http/SocketDirectory.h"

#include <QByteArray>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace runbox::http {

namespace {

QString errnoText(const char* what, const QString& path) {
    return QStringLiteral("%1 %2: %3")
        .arg(QLatin1String(what), path, QString::fromLocal8Bit(std::strerror(errno)));
}

bool fillAddress(const QByteArray& path, sockaddr_un* address) {
    *address = {};
    address->sun_family = AF_UNIX;
    if (path.size() >= qsizetype(sizeof address->sun_path))
        return false;
    std::memcpy(address->sun_path, path.constData(), size_t(path.size()));
    return true;
}

/// True when something accepts connections on the socket at @p address.
bool someoneListens(const sockaddr_un& address) {
    const int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (probe < 0)
        return false;
    const bool live =
        ::connect(probe, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
    ::close(probe);
    return live;
}

} // namespace

QString UnixListenSocket::open(const QString& path, const QString& group, int backlog) {
    if (!QFileInfo(path).isAbsolute())
        return QStringLiteral("the unix socket path %1 is not absolute").arg(path);
    const QByteArray encoded = QFile::encodeName(path);
    sockaddr_un address;
    if (!fillAddress(encoded, &address))
        return QStringLiteral("the unix socket path %1 is longer than %2 bytes")
            .arg(path)
            .arg(sizeof address.sun_path - 1);
    // The group first: nothing is made for a group that does not exist.
    if (!group.isEmpty()) {
        const struct group* g = ::getgrnam(group.toLocal8Bit().constData());
        if (!g)
            return QStringLiteral("the unix socket group %1 does not exist").arg(group);
        m_gid = g->gr_gid;
    } else {
        const struct group* runbox = ::getgrnam("runbox");
        m_gid = runbox ? runbox->gr_gid : ::getegid();
    }
    // The directory, and every one on the way to it: only root or the agent's user may change
    // what the path names (a sticky one aside, where no one else can rename or remove what the
    // agent makes), or anyone could swap the socket for an impostor that collects tokens, or
    // race the mode and group onto another file.
    QString canonical, refusal;
    workspace::UniqueFd directory =
        SocketDirectory::open(QFileInfo(path).absolutePath(), &canonical, &refusal);
    if (!directory.valid())
        return QStringLiteral("the unix socket path %1 is refused: %2; use a private directory "
                              "such as /run/runbox")
            .arg(path, refusal);
    const int dirFd = directory.get();
    struct stat st {};
    const QByteArray name = QFile::encodeName(QFileInfo(path).fileName());
    if (::fstatat(dirFd, name.constData(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (!S_ISSOCK(st.st_mode))
            return QStringLiteral("%1 exists and is not a socket: remove it or choose another "
                                  "path")
                .arg(path);
        if (someoneListens(address))
            return QStringLiteral("%1 is in use: another process (an agent?) accepts "
                                  "connections on it")
                .arg(path);
        if (::unlinkat(dirFd, name.constData(), 0) != 0 && errno != ENOENT)
            return errnoText("cannot remove the stale socket", path);
    }
    // Bound and given its mode and group under a temporary name, then renamed onto the path;
    // the mode and group go by the directory's descriptor and never through a link.
    const QByteArray temporaryName =
        name + ".tmp-" + QByteArray::number(QRandomGenerator::system()->generate64(), 16);
    // Bound through the directory's descriptor (its /proc/self/fd link), never by the path
    // again: what was checked above is where the socket is made.
    const QByteArray temporary = "/proc/self/fd/" + QByteArray::number(dirFd) + '/' + temporaryName;
    sockaddr_un temporaryAddress;
    if (!fillAddress(temporary, &temporaryAddress))
        return QStringLiteral("the unix socket path %1 is too long for its temporary name")
            .arg(path);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return errnoText("cannot create a unix socket for", path);
    const QString tmpPath = canonical + '/' + QFile::decodeName(temporaryName);
    auto fail = [&](const char* what) {
        const QString reason = errnoText(what, tmpPath);
        ::unlinkat(dirFd, temporaryName.constData(), 0);
        ::close(fd);
        return reason;
    };
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&temporaryAddress), sizeof temporaryAddress) !=
        0)
        return fail("cannot bind");
    if (::fchmodat(dirFd, temporaryName.constData(), 0660, AT_SYMLINK_NOFOLLOW) != 0)
        return fail("cannot chmod 0660");
    if (::fchownat(dirFd, temporaryName.constData(), uid_t(-1), m_gid, AT_SYMLINK_NOFOLLOW) != 0)
        return fail("cannot give the group to");
    if (::fstatat(dirFd, temporaryName.constData(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISSOCK(st.st_mode) || st.st_uid != ::geteuid()) {
        errno = EPERM;
        return fail("the socket was replaced under its temporary name:");
    }
    if (::listen(fd, backlog) != 0)
        return fail("cannot listen on");
    if (::renameat(dirFd, temporaryName.constData(), dirFd, name.constData()) != 0)
        return fail("cannot rename into place");
    if (::fstatat(dirFd, name.constData(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        const QString reason = errnoText("cannot stat", path);
        ::close(fd);
        return reason;
    }
    m_fd = fd;
    m_path = path;
    m_directory = std::move(directory);
    m_name = name;
    m_dev = st.st_dev;
    m_ino = st.st_ino;
    return {};
}

int UnixListenSocket::takeDescriptor() {
    const int fd = m_fd;
    m_fd = -1;
    return fd;
}

void UnixListenSocket::remove() {
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
    if (m_path.isEmpty())
        return;
    struct stat st {};
    if (m_directory.valid() &&
        ::fstatat(m_directory.get(), m_name.constData(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        st.st_dev == m_dev && st.st_ino == m_ino)
        ::unlinkat(m_directory.get(), m_name.constData(), 0);
    m_directory.reset();
    m_path.clear();
}

} // namespace runbox::http
