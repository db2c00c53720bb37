#pragma once

#include "agent/Error.h"
#include "agent/npu/NpuConfig.h"

#include <QList>
#include <QMap>
#include <QMutex>
#include <QObject>
#include <QSet>
#include <QString>

namespace runbox::npu {

/// Which chips are held by running executions (and broker jobs), so two of them never open the
/// same chip: the second waits (FIFO per chip) or is refused with 409 `chip_busy`, per the
/// operator's ChipBusyPolicy (docs/npu.md). A request takes all its chips at once or none.
///
/// Fairness: a request is granted only when all its chips are free and no earlier waiting
/// request shares a chip with it, so a large set is never starved by small ones. Chip keys are
/// logic ids; the broker uses the key -1 for its queue of jobs that name no chip.
///
/// Thread-safe; `granted` is emitted without the lock held, from the thread that freed the chips.
class ChipReservations final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ChipReservations)
public:
    enum class Outcome { Granted, Queued, Refused };
    struct Result {
        Outcome outcome = Outcome::Refused;
        Error error; ///< when Refused: Conflict `chip_busy` or `duplicate_reservation`
    };

    explicit ChipReservations(ChipBusyPolicy policy = ChipBusyPolicy::Queue,
                              QObject* parent = nullptr);

    ChipBusyPolicy policy() const;
    /// Applies to requests made after the change.
    void setPolicy(ChipBusyPolicy policy);

    /// Requests @p chips for @p holder (an execution or job id, unique among live requests) under
    /// the current policy. Granted: the chips are held now. Queued: `granted(holder, chips)`
    /// follows once they are. An empty set is granted at once and holds nothing.
    Result acquire(const QString& holder, const QList<int>& chips);
    /// Same with an explicit policy (the broker always queues).
    Result acquire(const QString& holder, const QList<int>& chips, ChipBusyPolicy policy);

    /// Frees what @p holder holds, or withdraws its queued request; then grants waiting requests
    /// in order. Unknown holders are ignored.
    void release(const QString& holder);

    /// chip → holder, for every held chip.
    QMap<int, QString> holders() const;
    /// Held chip keys.
    QSet<int> heldChips() const;
    /// Holders waiting, oldest first.
    QStringList waiting() const;

Q_SIGNALS:
    /// A queued request now holds its chips.
    void granted(const QString& holder, const QList<int>& chips);

private:
    struct Request {
        QString holder;
        QList<int> chips;
    };
    /// Grants what the FIFO rule allows; returns the newly granted requests.
    QList<Request> grantWaitingLocked();

    mutable QMutex m_mutex;
    ChipBusyPolicy m_policy;
    QMap<int, QString> m_held;
    QMap<QString, QList<int>> m_byHolder;
    QList<Request> m_queue;
};

} // namespace runbox::npu
