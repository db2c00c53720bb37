#include "shared/PoolCache.h"

#include "shared/Crypto.h"
#include "shared/FleetFile.h"
#include "shared/PrivateFile.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QSet>
#include <QThread>
#include <QUrl>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox {

namespace {

constexpr int kVersion = 1;
constexpr qint64 kFutureSlackSecs = 60; // clocks of one machine: a little skew at most

/// A whole number in [lo, hi] held by @p v (a JSON number), else false.
bool wholeNumber(const QJsonValue& v, qint64 lo, qint64 hi, qint64* out) {
    if (!v.isDouble())
        return false;
    const double d = v.toDouble();
    if (!std::isfinite(d) || d != std::floor(d) || d < double(lo) || d > double(hi))
        return false;
    *out = qint64(d);
    return true;
}

/// The entry @p v describes, or false when any member is missing, unknown, ill-typed or out
/// of range (docs/contracts.md "Pool cache").
bool entryOf(const QJsonValue& v, PoolCacheEntry* e) {
    static const QSet<QString> members{"name", "url",      "fingerprint", "tokenFingerprint",
                                       "free", "capacity", "seenAt"};
    if (!v.isObject())
        return false;
    const QJsonObject o = v.toObject();
    if (o.size() != members.size())
        return false;
    for (auto it = o.begin(); it != o.end(); ++it)
        if (!members.contains(it.key()))
            return false;
    const QJsonValue name = o.value(QLatin1String("name")), url = o.value(QLatin1String("url")),
                     fp = o.value(QLatin1String("fingerprint")),
                     tfp = o.value(QLatin1String("tokenFingerprint")),
                     seen = o.value(QLatin1String("seenAt")), free = o.value(QLatin1String("free"));
    if (!name.isString() || !url.isString() || !fp.isString() || !tfp.isString() ||
        !seen.isString())
        return false;
    e->name = name.toString();
    e->url = url.toString();
    e->fingerprint = fp.toString();
    e->tokenFingerprint = tfp.toString();
    const QUrl parsed(e->url, QUrl::StrictMode);
    if (!FleetFile::validName(e->name) || e->url.size() > 2048 || !parsed.isValid() ||
        parsed.host().isEmpty() ||
        (parsed.scheme() != QLatin1String("http") && parsed.scheme() != QLatin1String("https")))
        return false;
    if (!(e->fingerprint.isEmpty() || crypto::isLowerHex(e->fingerprint.toLatin1(), 64)) ||
        !crypto::isLowerHex(e->tokenFingerprint.toLatin1(), 16))
        return false;
    if (!wholeNumber(o.value(QLatin1String("capacity")), 0, PoolCache::kMaxCapacity, &e->capacity))
        return false;
    if (free.isNull()) { // no pool limit: only without a capacity, as /v1/health says it
        if (e->capacity != 0)
            return false;
        e->free = -1;
    } else if (e->capacity == 0 || !wholeNumber(free, 0, e->capacity, &e->free)) {
        return false;
    }
    e->seenAt = QDateTime::fromString(seen.toString(), Qt::ISODateWithMs);
    return e->seenAt.isValid() && e->seenAt.timeSpec() == Qt::UTC;
}

QJsonObject jsonOf(const PoolCacheEntry& e) {
    return {{"name", e.name},
            {"url", e.url},
            {"fingerprint", e.fingerprint},
            {"tokenFingerprint", e.tokenFingerprint},
            {"free", e.free < 0 ? QJsonValue() : QJsonValue(double(e.free))},
            {"capacity", double(e.capacity)},
            {"seenAt", e.seenAt.toUTC().toString(Qt::ISODateWithMs)}};
}

/// Makes @p dir (0700) when missing and checks it is a directory of this user's, not a link;
/// sets it 0700. Empty on success, else why.
QString privateDir(const QString& dir) {
    if (!QDir().mkpath(dir))
        return QStringLiteral("cannot make %1").arg(dir);
    const QByteArray path = QFile::encodeName(dir);
    struct stat st {};
    if (::lstat(path.constData(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid())
        return QStringLiteral("%1 is no directory of this user's").arg(dir);
    if ((st.st_mode & 07777) != 0700 && ::chmod(path.constData(), 0700) != 0)
        return QStringLiteral("cannot chmod 700 %1: %2")
            .arg(dir, QString::fromLocal8Bit(std::strerror(errno)));
    return {};
}

/// An flock(2) on a file, held while it lives.
class FileLock final {
public:
    explicit FileLock(const QString& path) {
        m_fd = ::open(QFile::encodeName(path).constData(),
                      O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
    }
    ~FileLock() {
        if (m_fd >= 0)
            ::close(m_fd); // releases the lock
    }
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

    /// Takes the lock within @p timeoutMs; false when the file could not be opened or another
    /// writer kept it that long.
    bool acquire(int timeoutMs) {
        QElapsedTimer timer;
        timer.start();
        while (m_fd >= 0) {
            if (::flock(m_fd, LOCK_EX | LOCK_NB) == 0)
                return true;
            if (errno != EWOULDBLOCK && errno != EINTR)
                return false;
            if (timer.elapsed() > timeoutMs)
                return false;
            QThread::msleep(10);
        }
        return false;
    }

private:
    int m_fd = -1;
};

} // namespace

QString PoolCache::defaultPath(const QString& pool) {
    if (!FleetFile::validName(pool))
        return {};
    const QString xdg = qEnvironmentVariable("XDG_CACHE_HOME");
    return (xdg.isEmpty() ? QDir::homePath() + QStringLiteral("/.cache") : xdg) +
           QStringLiteral("/runbox/pools/") + pool + QStringLiteral("/cache.json");
}

QString PoolCache::tokenFingerprint(const QByteArray& token) {
    return QString::fromLatin1(crypto::sha256Hex(token).left(16));
}

QString PoolCache::pinHex(const QByteArray& pin) {
    return QString::fromLatin1(pin.toHex());
}

PoolCache::PoolCache(QString pool, QString path)
    : m_pool(std::move(pool)), m_path(std::move(path)) {
    if (!FleetFile::validName(m_pool))
        m_path.clear();
}

int PoolCache::load(QString* why) {
    QString reason;
    m_entries.clear();
    QByteArray bytes;
    if (m_path.isEmpty()) {
        reason = QStringLiteral("no cache");
    } else if (PrivateFile::read(m_path, &bytes, &reason, kMaxBytes)) {
        QJsonParseError parseError{};
        const QJsonDocument doc = QJsonDocument::fromJson(bytes, &parseError);
        const QJsonObject root = doc.object();
        qint64 version = 0;
        if (parseError.error != QJsonParseError::NoError || !doc.isObject())
            reason = QStringLiteral("not a JSON object");
        else if (!wholeNumber(root.value(QLatin1String("version")), 0, 1000, &version) ||
                 version != kVersion)
            reason = QStringLiteral("not version %1").arg(kVersion);
        else if (root.value(QLatin1String("pool")).toString() != m_pool)
            reason = QStringLiteral("of another pool");
        else if (!root.value(QLatin1String("hosts")).isArray())
            reason = QStringLiteral("no hosts array");
        else
            for (const QJsonValue& v : root.value(QLatin1String("hosts")).toArray()) {
                PoolCacheEntry e;
                if (entryOf(v, &e) && !m_entries.contains(e.name))
                    m_entries.insert(e.name, e);
            }
    }
    if (why)
        *why = reason;
    return int(m_entries.size());
}

const PoolCacheEntry* PoolCache::usable(const QString& name, const QString& url,
                                        const QByteArray& pin, const QByteArray& token,
                                        const QDateTime& now) const {
    const auto it = m_entries.constFind(name);
    if (it == m_entries.cend())
        return nullptr;
    const qint64 age = it->seenAt.secsTo(now);
    if (age > kFreshSecs || age < -kFutureSlackSecs)
        return nullptr;
    if (it->url != url || it->fingerprint != pinHex(pin) ||
        it->tokenFingerprint != tokenFingerprint(token))
        return nullptr;
    return &*it;
}

void PoolCache::record(const PoolCacheEntry& entry) {
    m_entries.insert(entry.name, entry);
    m_recorded.insert(entry.name, entry);
    m_pruned.remove(entry.name);
}

void PoolCache::prune(const QString& name) {
    m_recorded.remove(name);
    if (m_entries.remove(name) > 0) // nothing to write for a host the file does not hold
        m_pruned.insert(name, QDateTime::currentDateTimeUtc());
}

void PoolCache::pruneAllBut(const QList<QString>& names) {
    const QSet<QString> keep(names.cbegin(), names.cend());
    for (const QString& name : m_entries.keys())
        if (!keep.contains(name))
            prune(name);
}

QString PoolCache::save() {
    if (m_path.isEmpty())
        return QStringLiteral("no cache");
    if (m_recorded.isEmpty() && m_pruned.isEmpty())
        return {};
    if (const QString e = privateDir(QFileInfo(m_path).absolutePath()); !e.isEmpty())
        return e;
    FileLock lock(m_path + QStringLiteral(".lock"));
    if (!lock.acquire(kLockTimeoutMs))
        return QStringLiteral("cannot lock %1.lock").arg(m_path);
    PoolCache disk(m_pool, m_path); // what other writers committed meanwhile
    disk.load();
    QMap<QString, PoolCacheEntry> merged = disk.m_entries;
    for (auto it = m_pruned.cbegin(); it != m_pruned.cend(); ++it)
        if (merged.contains(it.key()) && merged[it.key()].seenAt <= it.value())
            merged.remove(it.key());
    for (const PoolCacheEntry& e : m_recorded)
        if (!merged.contains(e.name) || merged[e.name].seenAt <= e.seenAt)
            merged.insert(e.name, e);
    QJsonArray hosts;
    for (const PoolCacheEntry& e : merged)
        hosts.append(jsonOf(e));
    // QSaveFile writes through a symlink to its target: a link (or a FIFO, anything but a
    // regular file) planted as the cache is removed first, so the rename replaces the name.
    struct stat st {};
    const QByteArray name = QFile::encodeName(m_path);
    if (::lstat(name.constData(), &st) == 0 && !S_ISREG(st.st_mode) &&
        ::unlink(name.constData()) != 0)
        return QStringLiteral("cannot replace %1: %2")
            .arg(m_path, QString::fromLocal8Bit(std::strerror(errno)));
    QSaveFile file(m_path);
    if (!file.open(QIODevice::WriteOnly))
        return QStringLiteral("cannot write %1: %2").arg(m_path, file.errorString());
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(QJsonDocument(QJsonObject{{"version", kVersion}, {"pool", m_pool}, {"hosts", hosts}})
                   .toJson(QJsonDocument::Indented));
    if (!file.commit()) // fsync, then rename over the old one
        return QStringLiteral("cannot write %1: %2").arg(m_path, file.errorString());
    m_entries = merged;
    m_recorded.clear();
    m_pruned.clear();
    return {};
}

} // namespace runbox
