#include "agent/config/StateDir.h"

#include "shared/Crypto.h"
#include "shared/PrivateFile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox::config {

bool writeFileAtomically(const QString& path, const QByteArray& data, int mode, QString* error) {
    QByteArray tmp = QFile::encodeName(path) + ".tmp-XXXXXX";
    const int fd = mkstemp(tmp.data());
    if (fd < 0) {
        *error = QStringLiteral("cannot create %1: %2")
                     .arg(path, QString::fromLocal8Bit(strerror(errno)));
        return false;
    }
    bool ok = fchmod(fd, mode_t(mode)) == 0;
    qsizetype done = 0;
    while (ok && done < data.size()) {
        const ssize_t n = ::write(fd, data.constData() + done, size_t(data.size() - done));
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0;
        done += n > 0 ? n : 0;
    }
    ok = ok && fsync(fd) == 0;
    const int savedErrno = errno;
    ::close(fd);
    if (!ok || ::rename(tmp.constData(), QFile::encodeName(path).constData()) != 0) {
        *error = QStringLiteral("cannot write %1: %2")
                     .arg(path, QString::fromLocal8Bit(strerror(ok ? errno : savedErrno)));
        ::unlink(tmp.constData());
        return false;
    }
    return true;
}

QString StateDir::openToSandboxUsers() const {
    const QDir root(m_path);
    for (QString dir = QFileInfo(m_path).path();; dir = QFileInfo(dir).path()) {
        struct stat st {};
        if (::stat(QFile::encodeName(dir).constData(), &st) != 0 || !(st.st_mode & S_IXOTH))
            return QStringLiteral("%1 is not searchable by other users (chmod o+x it, or put the "
                                  "state directory elsewhere): sandboxes of a root agent run as "
                                  "their workspace's uid and reach their workspace by path")
                .arg(dir);
        if (dir == QLatin1String("/") || dir.isEmpty())
            break;
    }
    QDir().mkpath(root.filePath(QStringLiteral("egress")));
    const QStringList open{QStringLiteral("workspaces"), QStringLiteral("egress")};
    for (const QFileInfo& entry : root.entryInfoList(QDir::AllEntries | QDir::Hidden |
                                                     QDir::NoDotAndDotDot | QDir::System)) {
        const QByteArray path = QFile::encodeName(entry.filePath());
        if (entry.isSymLink() || entry.fileName() == QLatin1String("light"))
            continue;
        const mode_t mode = open.contains(entry.fileName()) ? 0711 : entry.isDir() ? 0700 : 0600;
        if (::chmod(path.constData(), mode) != 0)
            return QStringLiteral("cannot chmod %1").arg(entry.filePath());
    }
    if (::chmod(QFile::encodeName(m_path).constData(), 0711) != 0)
        return QStringLiteral("cannot chmod %1 to 0711").arg(m_path);
    return {};
}

QString StateDir::prepare() const {
    for (const QString& dir :
         {m_path, filePath(QStringLiteral("workspaces")), filePath(QStringLiteral("run"))}) {
        if (!QDir().mkpath(dir))
            return QStringLiteral("cannot create state directory %1").arg(dir);
        ::chmod(QFile::encodeName(dir).constData(), 0700);
    }
    if (::access(QFile::encodeName(m_path).constData(), W_OK) != 0)
        return QStringLiteral("state directory %1 is not writable by this user: %2")
            .arg(m_path, QString::fromLocal8Bit(strerror(errno)));
    return {};
}

QByteArray StateDir::loadOrCreateToken(QString* error) const {
    return loadOrCreateSecret(QStringLiteral("agent.token"), error);
}

QByteArray StateDir::loadOrCreateMetricsToken(QString* error) const {
    return loadOrCreateSecret(QStringLiteral("metrics.token"), error);
}

namespace {
/// A new token: 256 random bits (OpenSSL's RAND_bytes) as 64 lowercase hex characters.
QByteArray freshToken() {
    return crypto::randomBytes(32).toHex();
}
} // namespace

QByteArray StateDir::rotateMetricsToken(QString* error) const {
    const QByteArray token = freshToken();
    if (!writeFileAtomically(filePath(QStringLiteral("metrics.token")), token + '\n', 0600, error))
        return {};
    return token;
}

QByteArray StateDir::loadOrCreateSecret(const QString& name, QString* error) const {
    const QString path = filePath(name);
    struct stat st {};
    if (::lstat(QFile::encodeName(path).constData(), &st) == 0 || errno != ENOENT) {
        // A state directory an unprivileged agent used before a root agent took it over (the
        // upgrade to the light tier): its token files become root's, as the rest of the state.
        // lchown(2): a link put there instead is changed itself, never what it points to.
        if (::geteuid() == 0 && S_ISREG(st.st_mode) && st.st_uid != 0 && (st.st_mode & 077) == 0)
            ::lchown(QFile::encodeName(path).constData(), 0, 0);
        // There (or not known to be missing): read under shared/PrivateFile's rules, never
        // replaced, so a token the operator gave is not changed behind their back.
        QByteArray contents;
        if (!PrivateFile::read(path, &contents, error))
            return {};
        const QByteArray token = contents.trimmed();
        if (token.size() < 32) {
            *error = QStringLiteral("%1 holds no usable token (too short)").arg(path);
            return {};
        }
        return token;
    }
    const QByteArray token = freshToken();
    if (!writeFileAtomically(path, token + '\n', 0600, error))
        return {};
    return token;
}

bool StateDir::writeUrl(const QString& url) const {
    QString error;
    return writeFileAtomically(filePath(QStringLiteral("agent.url")), url.toUtf8() + '\n', 0644,
                               &error);
}

bool StateDir::writeTlsUrl(const QString& url) const {
    const QString path = filePath(QStringLiteral("agent.tls-url"));
    if (url.isEmpty())
        return !QFile::exists(path) || QFile::remove(path);
    QString error;
    return writeFileAtomically(path, url.toUtf8() + '\n', 0644, &error);
}

} // namespace runbox::config
