#include "agent/npu/ChipReservations.h"

#include <QMutexLocker>

#include <algorithm>
#include <optional>

namespace runbox::npu {

namespace {

QList<int> normalised(const QList<int>& chips) {
    QList<int> sorted = QSet<int>(chips.cbegin(), chips.cend()).values();
    std::sort(sorted.begin(), sorted.end());
    return sorted;
}

QString chipName(int chip) {
    return chip < 0 ? QStringLiteral("the host NPU queue") : QStringLiteral("NPU %1").arg(chip);
}

} // namespace

ChipReservations::ChipReservations(ChipBusyPolicy policy, QObject* parent)
    : QObject(parent), m_policy(policy) {}

ChipBusyPolicy ChipReservations::policy() const {
    QMutexLocker lock(&m_mutex);
    return m_policy;
}

void ChipReservations::setPolicy(ChipBusyPolicy policy) {
    QMutexLocker lock(&m_mutex);
    m_policy = policy;
}

ChipReservations::Result ChipReservations::acquire(const QString& holder, const QList<int>& chips) {
    return acquire(holder, chips, policy());
}

ChipReservations::Result ChipReservations::acquire(const QString& holder, const QList<int>& chips,
                                                   ChipBusyPolicy policy) {
    const QList<int> wanted = normalised(chips);
    QMutexLocker lock(&m_mutex);
    const bool known = m_byHolder.contains(holder) ||
                       std::any_of(m_queue.cbegin(), m_queue.cend(),
                                   [&](const Request& r) { return r.holder == holder; });
    if (known)
        return {Outcome::Refused,
                Error{ErrorKind::Conflict, QStringLiteral("duplicate_reservation"),
                      QStringLiteral("%1 already holds or awaits chips").arg(holder)}};
    if (wanted.isEmpty())
        return {Outcome::Granted, {}};
    QSet<int> blocked;
    for (const Request& waiting : m_queue)
        for (int chip : waiting.chips)
            blocked.insert(chip);
    std::optional<int> busyChip;
    for (int chip : wanted)
        if (m_held.contains(chip) || blocked.contains(chip)) {
            busyChip = chip;
            break;
        }
    if (!busyChip) {
        for (int chip : wanted)
            m_held.insert(chip, holder);
        m_byHolder.insert(holder, wanted);
        return {Outcome::Granted, {}};
    }
    if (policy == ChipBusyPolicy::Refuse)
        return {
            Outcome::Refused,
            Error{ErrorKind::Conflict, QStringLiteral("chip_busy"),
                  QStringLiteral("%1 is in use by another execution").arg(chipName(*busyChip))}};
    m_queue.append({holder, wanted});
    return {Outcome::Queued, {}};
}

void ChipReservations::release(const QString& holder) {
    QList<Request> granted;
    {
        QMutexLocker lock(&m_mutex);
        if (m_byHolder.contains(holder)) {
            for (int chip : m_byHolder.take(holder))
                m_held.remove(chip);
        } else {
            m_queue.removeIf([&](const Request& r) { return r.holder == holder; });
        }
        granted = grantWaitingLocked();
    }
    for (const Request& request : granted)
        Q_EMIT this->granted(request.holder, request.chips);
}

QList<ChipReservations::Request> ChipReservations::grantWaitingLocked() {
    QList<Request> granted;
    QSet<int> blocked;
    for (auto it = m_queue.begin(); it != m_queue.end();) {
        const bool free = std::none_of(it->chips.cbegin(), it->chips.cend(), [&](int chip) {
            return m_held.contains(chip) || blocked.contains(chip);
        });
        if (free) {
            for (int chip : it->chips)
                m_held.insert(chip, it->holder);
            m_byHolder.insert(it->holder, it->chips);
            granted.append(*it);
            it = m_queue.erase(it);
        } else {
            for (int chip : it->chips)
                blocked.insert(chip);
            ++it;
        }
    }
    return granted;
}

QMap<int, QString> ChipReservations::holders() const {
    QMutexLocker lock(&m_mutex);
    return m_held;
}

QSet<int> ChipReservations::heldChips() const {
    QMutexLocker lock(&m_mutex);
    return QSet<int>(m_held.keyBegin(), m_held.keyEnd());
}

QStringList ChipReservations::waiting() const {
    QMutexLocker lock(&m_mutex);
    QStringList list;
    for (const Request& request : m_queue)
        list << request.holder;
    return list;
}

} // namespace runbox::npu
