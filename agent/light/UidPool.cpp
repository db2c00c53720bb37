#include "agent/light/UidPool.h"

#include <QDir>
#include <QFile>

#include <limits>

namespace runbox::light {

namespace {

/// Parses "Uid:\t0\t0\t0\t0" style lines of /proc/<pid>/status.
void collectStatusIds(const QByteArray& status, std::vector<std::uint32_t>* out) {
    for (const QByteArray& line : status.split('\n')) {
        if (!line.startsWith("Uid:") && !line.startsWith("Gid:"))
            continue;
        const QList<QByteArray> fields = line.mid(4).simplified().split(' ');
        for (const QByteArray& field : fields) {
            bool ok = false;
            const uint id = field.toUInt(&ok);
            if (ok)
                out->push_back(id);
        }
    }
}

} // namespace

UidPool::UidPool(const Config& config) {
    const std::uint64_t last = std::uint64_t{config.first} + config.count - 1;
    if (config.first < 1000 || config.count == 0 ||
        last >= std::numeric_limits<std::uint32_t>::max() - 1) {
        m_error = QStringLiteral("invalid uid range: first %1, count %2 (first must be ≥ 1000, the "
                                 "range non-empty and below 4294967294)")
                      .arg(config.first)
                      .arg(config.count);
        return;
    }
    m_first = config.first;
    m_count = config.count;
    m_state.assign(m_count, State::Free);
    std::vector<std::uint32_t> taken = idsInAccountFile(config.passwdPath);
    for (std::uint32_t id : idsInAccountFile(config.groupPath))
        taken.push_back(id);
    for (std::uint32_t id : idsHeldByProcesses(config.procPath))
        taken.push_back(id);
    for (std::uint32_t id : taken) {
        if (contains(id))
            m_state[id - m_first] = State::Reserved;
    }
    for (std::uint32_t i = 0; i < m_count; ++i) {
        if (m_state[i] == State::Free)
            m_free.push_back(m_first + i);
    }
}

bool UidPool::contains(uid_t uid) const {
    return uid >= m_first && uid - m_first < m_count;
}

std::optional<uid_t> UidPool::acquire() {
    std::lock_guard lock(m_mutex);
    if (m_free.empty())
        return std::nullopt;
    const uid_t uid = m_free.front();
    m_free.pop_front();
    m_state[uid - m_first] = State::InUse;
    ++m_inUse;
    return uid;
}

bool UidPool::release(uid_t uid) {
    std::lock_guard lock(m_mutex);
    if (!contains(uid) || m_state[uid - m_first] != State::InUse)
        return false;
    m_state[uid - m_first] = State::Free;
    --m_inUse;
    m_free.push_back(uid);
    return true;
}

void UidPool::quarantine(uid_t uid, const QString& reason) {
    std::lock_guard lock(m_mutex);
    m_quarantine.insert(uid, reason);
    if (!contains(uid))
        return;
    State& state = m_state[uid - m_first];
    if (state == State::InUse)
        --m_inUse;
    if (state == State::Free) {
        for (auto it = m_free.begin(); it != m_free.end(); ++it) {
            if (*it == uid) {
                m_free.erase(it);
                break;
            }
        }
    }
    state = State::Quarantined;
}

bool UidPool::isQuarantined(uid_t uid) const {
    std::lock_guard lock(m_mutex);
    return m_quarantine.contains(uid);
}

QString UidPool::quarantineReason(uid_t uid) const {
    std::lock_guard lock(m_mutex);
    return m_quarantine.value(uid);
}

QHash<uid_t, QString> UidPool::quarantined() const {
    std::lock_guard lock(m_mutex);
    return m_quarantine;
}

UidPool::Stats UidPool::stats() const {
    std::lock_guard lock(m_mutex);
    Stats stats;
    stats.free = static_cast<std::uint32_t>(m_free.size());
    stats.inUse = m_inUse;
    stats.quarantined = static_cast<std::uint32_t>(m_quarantine.size());
    stats.reserved = m_count - stats.free - stats.inUse;
    for (auto it = m_quarantine.cbegin(); it != m_quarantine.cend(); ++it) {
        if (contains(it.key()))
            --stats.reserved;
    }
    return stats;
}

std::vector<std::uint32_t> UidPool::idsHeldByProcesses(const QString& procPath) {
    std::vector<std::uint32_t> ids;
    const QStringList pids = QDir(procPath).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& pid : pids) {
        bool numeric = false;
        pid.toUInt(&numeric);
        if (!numeric)
            continue;
        QFile status(procPath + QLatin1Char('/') + pid + QStringLiteral("/status"));
        if (status.open(QIODevice::ReadOnly))
            collectStatusIds(status.readAll(), &ids);
    }
    return ids;
}

std::vector<std::uint32_t> UidPool::idsInAccountFile(const QString& path) {
    std::vector<std::uint32_t> ids;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return ids;
    for (const QByteArray& line : file.readAll().split('\n')) {
        const QList<QByteArray> fields = line.split(':');
        if (fields.size() < 3)
            continue;
        bool ok = false;
        const uint id = fields.at(2).toUInt(&ok);
        if (ok)
            ids.push_back(id);
    }
    return ids;
}

} // namespace runbox::light
