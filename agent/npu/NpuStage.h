#pragma once

#include "agent/Error.h"
#include "agent/execution/LaunchPlanner.h"
#include "agent/npu/NpuChip.h"

#include <QHash>
#include <QObject>
#include <QPointer>

namespace runbox::npu {

class NpuService;

/// The launch stage that passes Ascend chips into a sandbox (docs/npu.md "Launch with chips"). For
/// an execution whose permission epoch names chips (`npuDevices`, validated at request time):
/// 1. acquires them in the shared ChipReservations under the operator's policy: queue (the
///    execution waits here, its record still `queued`, until every chip is free) or refuse
///    (Conflict `chip_busy`; the execution ends `setup_failed`);
/// 2. probes exactly those chips again, off the event-loop thread; any unusable chip refuses the
///    launch (Unavailable `npu_unusable`, the reason names the chip) — it never runs on fewer
///    chips;
/// 3. adds NpuPassthrough's bwrap fragment (after `--dev /dev`) and environment, and selects the
///    `Npu` seccomp profile;
/// 4. registers a release action, so the chips are freed when the execution ends.
/// An execution with no chips passes through untouched: its launch is byte-for-byte the same.
///
/// Reservation holders are `exec:<executionId>` (broker job ids cannot contain ':'). Its errors
/// are domain errors (runbox::Error).
/// Lives on the event-loop thread.
class NpuStage final : public QObject, public execution::LaunchStage {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(NpuStage)
public:
    explicit NpuStage(NpuService* service, QObject* parent = nullptr);
    ~NpuStage() override;

    void prepare(const execution::LaunchContext& context, execution::LaunchPlan* plan,
                 std::function<void(std::optional<Error>)> done) override;
    /// Withdraws a waiting request, drops an unfinished probe's result, and frees whatever the
    /// execution holds; its done() is never called afterwards.
    void abandon(const QString& executionId) override;

    /// Executions waiting for chips or for their probe.
    int pendingCount() const { return int(m_pending.size()); }
    /// The reservation holder name of @p executionId.
    static QString holderOf(const QString& executionId);

    /// The NPU feature's field of exec requests and permission epochs: `npuDevices`, the chip
    /// logic ids (docs/npu.md "Launch with chips").
    static const QString kField;
    /// The form check of `npuDevices` (ExecLimits::featureChecks; NpuPassthrough::parseIds):
    /// 400 `invalid_npu_devices` for a malformed value, on any host and tier.
    static std::optional<Error> checkField(const QJsonValue& requested);
    /// Records @p request's chips (already validated, canonical: NpuPassthrough::parseSelection)
    /// in @p epoch: `"npuDevices": [ids]`, [] when it asked for none.
    static void recordInto(const execution::ExecRequest& request,
                           execution::PermissionEpoch* epoch);
    /// The chips @p epoch names (empty when none).
    static QList<int> chipsOf(const execution::PermissionEpoch& epoch);
    /// Replaces @p request's `npuDevices` section with the validated @p chips.
    static void setChips(execution::ExecRequest* request, const QList<int>& chips);

private:
    struct Pending {
        QList<int> chips;
        execution::LaunchPlan* plan = nullptr; ///< kept alive by @c done (LaunchPlanner)
        std::function<void(std::optional<Error>)> done;
        bool probing = false;
    };
    void onGranted(const QString& holder);
    void beginProbe(const QString& executionId);
    void onProbed(const QString& executionId, const QList<ChipProbeResult>& results);
    /// Adds the passthrough to @p plan; an error when a device node is missing.
    std::optional<Error> applyPassthrough(const QList<int>& chips,
                                          execution::LaunchPlan* plan) const;

    NpuService* m_service;
    QHash<QString, Pending> m_pending; ///< by execution id
};

} // namespace runbox::npu
