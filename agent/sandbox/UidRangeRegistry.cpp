#include "agent/sandbox/UidRangeRegistry.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox::sandbox {

namespace {

QString errnoText() {
    return QString::fromLocal8Bit(std::strerror(errno));
}

/// One file's claims: lines "tier first count", then "pid N" and "state PATH".
struct Entry {
    QList<UidRangeRegistry::Claim> claims;
    QString pid;
    QString stateDir;
};

Entry parse(const QByteArray& text) {
    Entry entry;
    for (const QByteArray& line : text.split('\n')) {
        const QList<QByteArray> f = line.split(' ');
        if (f.size() == 3 && (f[0] == "strong" || f[0] == "light"))
            entry.claims.append(
                {QString::fromLatin1(f[0]), UidRange{f[1].toULongLong(), f[2].toULongLong()}});
        else if (f.size() >= 2 && f[0] == "pid")
            entry.pid = QString::fromLatin1(f[1]);
        else if (line.startsWith("state "))
            entry.stateDir = QString::fromUtf8(line.mid(6));
    }
    return entry;
}

constexpr int kLockWaitMs = 5000;

/// Holds the directory's lock file while a claim is checked and written.
class DirectoryLock {
public:
    explicit DirectoryLock(const QString& dir) {
        m_fd = ::open(QFile::encodeName(dir + QStringLiteral("/.lock")).constData(),
                      O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        // Never wait without bound: a claim takes milliseconds, a longer hold is a fault.
        for (int waited = 0; m_fd >= 0 && ::flock(m_fd, LOCK_EX | LOCK_NB) != 0; waited += 50) {
            if (waited >= kLockWaitMs) {
                ::close(m_fd);
                m_fd = -1;
                break;
            }
            ::usleep(50 * 1000);
        }
    }
    ~DirectoryLock() {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    bool ok() const { return m_fd >= 0; }

private:
    int m_fd = -1;
};

} // namespace

UidRangeRegistry::~UidRangeRegistry() {
    release();
}

void UidRangeRegistry::release() {
    if (m_fd < 0)
        return;
    QFile::remove(m_path);
    ::close(m_fd);
    m_fd = -1;
}

bool UidRangeRegistry::claim(const QString& directory, const QList<Claim>& claims,
                             const QString& stateDir, QString* error) {
    release();
    if (!QDir().mkpath(directory)) {
        *error = QStringLiteral("cannot create the uid range registry %1").arg(directory);
        return false;
    }
    // The agent's own, 0700: another user holding a lock in it (flock(2) needs only a read
    // descriptor) could stall a claim or keep a dead agent's claim alive.
    const QByteArray native = QFile::encodeName(directory);
    struct stat st {};
    if (::lstat(native.constData(), &st) != 0 || !S_ISDIR(st.st_mode) ||
        st.st_uid != ::geteuid() || ::chmod(native.constData(), 0700) != 0) {
        *error = QStringLiteral("the uid range registry %1 must be a directory of uid %2 that "
                                "only it can enter")
                     .arg(directory)
                     .arg(::geteuid());
        return false;
    }
    const DirectoryLock lock(directory);
    if (!lock.ok()) {
        *error = QStringLiteral("cannot lock %1/.lock within %2 ms: %3")
                     .arg(directory)
                     .arg(kLockWaitMs)
                     .arg(errnoText());
        return false;
    }
    const QDir dir(directory);
    for (const QString& name : dir.entryList({QStringLiteral("*.range")}, QDir::Files)) {
        const QString path = dir.filePath(name);
        const int fd =
            ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
            continue;
        if (::flock(fd, LOCK_EX | LOCK_NB) == 0) { // nobody holds it: its agent is gone
            QFile::remove(path);
            ::close(fd);
            continue;
        }
        QFile file;
        QByteArray text;
        if (file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle))
            text = file.read(4096);
        else
            ::close(fd);
        const Entry entry = parse(text);
        for (const Claim& theirs : entry.claims)
            for (const Claim& ours : claims)
                if (ours.range.count > 0 && ours.range.overlaps(theirs.range)) {
                    *error = QStringLiteral("the %1 uid range %2 overlaps the %3 uid range %4 of "
                                            "the agent with pid %5 (state %6), claimed in %7: "
                                            "give each agent of a host its own ranges")
                                 .arg(ours.tier, ours.range.toString(), theirs.tier,
                                      theirs.range.toString(), entry.pid, entry.stateDir, path);
                    return false;
                }
    }
    // One file per claim (pid + random: a pid is reused, and one process may claim twice).
    m_path =
        dir.filePath(QStringLiteral("agent-%1-%2.range")
                         .arg(::getpid())
                         .arg(QRandomGenerator::global()->generate64(), 16, 16, QLatin1Char('0')));
    m_fd = ::open(QFile::encodeName(m_path).constData(),
                  O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (m_fd < 0 || ::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
        *error = QStringLiteral("cannot claim %1: %2").arg(m_path, errnoText());
        release();
        return false;
    }
    QByteArray text;
    for (const Claim& c : claims)
        text += QStringLiteral("%1 %2 %3\n")
                    .arg(c.tier)
                    .arg(c.range.first)
                    .arg(c.range.count)
                    .toLatin1();
    text += "pid " + QByteArray::number(::getpid()) + "\nstate " + stateDir.toUtf8() + '\n';
    if (::write(m_fd, text.constData(), size_t(text.size())) != ssize_t(text.size())) {
        *error = QStringLiteral("cannot write %1: %2").arg(m_path, errnoText());
        release();
        return false;
    }
    return true;
}

} // namespace runbox::sandbox
