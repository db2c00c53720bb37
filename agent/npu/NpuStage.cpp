#include "agent/npu/NpuStage.h"

#include "agent/npu/NpuPassthrough.h"
#include "agent/npu/NpuService.h"
#include "agent/sandbox/BwrapCommand.h"

#include <QJsonArray>

#include <algorithm>

namespace runbox::npu {

namespace {
const QLatin1String kHolderPrefix("exec:");
} // namespace

NpuStage::NpuStage(NpuService* service, QObject* parent) : QObject(parent), m_service(service) {
    connect(m_service->reservations(), &ChipReservations::granted, this,
            [this](const QString& holder, const QList<int>&) { onGranted(holder); });
}

NpuStage::~NpuStage() {
    for (auto it = m_pending.cbegin(); it != m_pending.cend(); ++it)
        m_service->reservations()->release(holderOf(it.key()));
}

const QString NpuStage::kField = QStringLiteral("npuDevices");

void NpuStage::recordInto(const execution::ExecRequest& request,
                          execution::PermissionEpoch* epoch) {
    const QJsonValue chips = request.features.value(kField);
    epoch->features.insert(kField, chips.isArray() ? chips : QJsonArray());
}

std::optional<Error> NpuStage::checkField(const QJsonValue& requested) {
    Error error;
    NpuPassthrough::parseIds(requested, &error);
    if (error.code.isEmpty())
        return std::nullopt;
    return error;
}

QList<int> NpuStage::chipsOf(const execution::PermissionEpoch& epoch) {
    QList<int> chips;
    for (const QJsonValue& id : epoch.features.value(kField).toArray())
        chips.append(id.toInt());
    return chips;
}

void NpuStage::setChips(execution::ExecRequest* request, const QList<int>& chips) {
    QJsonArray ids;
    for (int id : chips)
        ids.append(id);
    request->features.insert(kField, ids);
}

QString NpuStage::holderOf(const QString& executionId) {
    return kHolderPrefix + executionId;
}

void NpuStage::prepare(const execution::LaunchContext& context, execution::LaunchPlan* plan,
                       std::function<void(std::optional<Error>)> done) {
    const QList<int> chips = chipsOf(context.epoch);
    if (chips.isEmpty()) {
        done(std::nullopt);
        return;
    }
    const QString id = context.executionId;
    const QString holder = holderOf(id);
    ChipReservations* reservations = m_service->reservations();
    const ChipReservations::Result result = reservations->acquire(holder, chips);
    if (result.outcome == ChipReservations::Outcome::Refused) {
        done(result.error);
        return;
    }
    // Whatever happens next, the chips go back when the plan is released (execution end, a
    // later stage's refusal).
    QPointer<ChipReservations> guard(reservations);
    plan->releases.push_back([guard, holder] {
        if (guard)
            guard->release(holder);
    });
    m_pending.insert(id, Pending{chips, plan, std::move(done), false});
    if (result.outcome == ChipReservations::Outcome::Granted)
        beginProbe(id);
    // Queued: onGranted() continues.
}

void NpuStage::onGranted(const QString& holder) {
    if (!holder.startsWith(kHolderPrefix))
        return; // a broker job's grant
    const QString id = holder.mid(kHolderPrefix.size());
    const auto it = m_pending.constFind(id);
    if (it == m_pending.cend()) {
        // Abandoned while the grant was in flight: give the chips back at once.
        m_service->reservations()->release(holder);
        return;
    }
    if (!it->probing)
        beginProbe(id);
}

void NpuStage::beginProbe(const QString& executionId) {
    Pending& pending = m_pending[executionId];
    pending.probing = true;
    m_service->reprobe(pending.chips, this,
                       [this, executionId](const QList<ChipProbeResult>& results) {
                           onProbed(executionId, results);
                       });
}

void NpuStage::onProbed(const QString& executionId, const QList<ChipProbeResult>& results) {
    const auto it = m_pending.find(executionId);
    if (it == m_pending.end() || !it->probing)
        return; // abandoned meanwhile
    Pending pending = std::move(*it);
    m_pending.erase(it);
    QStringList unusable;
    for (int chip : pending.chips) {
        const auto result =
            std::find_if(results.cbegin(), results.cend(),
                         [chip](const ChipProbeResult& r) { return r.logicId == chip; });
        if (result == results.cend())
            unusable << QStringLiteral("NPU %1 was not probed").arg(chip);
        else if (!result->usable)
            unusable
                << (result->reason.isEmpty()
                        ? QStringLiteral("NPU %1 cannot be opened inside the sandbox").arg(chip)
                        : result->reason);
    }
    if (!unusable.isEmpty()) {
        pending.done(Error{ErrorKind::Unavailable, QStringLiteral("npu_unusable"),
                           unusable.join(QStringLiteral("; "))});
        return;
    }
    pending.done(applyPassthrough(pending.chips, pending.plan));
}

std::optional<Error> NpuStage::applyPassthrough(const QList<int>& chips,
                                                execution::LaunchPlan* plan) const {
    Error error;
    const NpuLaunchPlan npu = NpuPassthrough(m_service->config()).build(chips, &error);
    if (npu.isEmpty())
        return error.code.isEmpty()
                   ? Error{ErrorKind::Unavailable, QStringLiteral("npu_device_missing"),
                           QStringLiteral("no NPU device could be passed through")}
                   : error;
    sandbox::LaunchSpec& spec = plan->spec;
    spec.extraArgs << npu.bwrapArgs;
    plan->supplementaryGroups << npu.deviceGroups;
    // Restate what --clearenv removed, combined with what the sandbox would have had anyway.
    const QMap<QString, QString> base =
        sandbox::BwrapCommand::sandboxEnvironment(spec.userEnv, spec.extraEnv);
    const QMap<QString, QString> merged = npu.mergedEnvironment(base);
    for (auto it = merged.cbegin(); it != merged.cend(); ++it)
        if (!base.contains(it.key()) || base.value(it.key()) != it.value())
            spec.extraEnv.insert(it.key(), it.value());
    plan->seccompProfile = sandbox::SeccompProfileKind::Npu;
    return std::nullopt;
}

void NpuStage::abandon(const QString& executionId) {
    m_pending.remove(executionId);
    // Withdraws a queued request or frees held chips; unknown holders are ignored.
    m_service->reservations()->release(holderOf(executionId));
}

} // namespace runbox::npu
