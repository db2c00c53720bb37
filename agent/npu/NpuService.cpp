#include "agent/npu/NpuService.h"

#include "agent/execution/LaunchPlanner.h"
#include "agent/npu/NpuPassthrough.h"
#include "agent/sandbox/BwrapCommand.h"

#include <QDateTime>
#include <QJsonArray>
#include <QMetaObject>

#include <utility>

namespace runbox::npu {

NpuService::NpuService(NpuConfig config, ChipProbeOptions probeOptions, QObject* parent)
    : QObject(parent), m_config(std::move(config)),
      m_reservations(new ChipReservations(m_config.busyPolicy, this)),
      m_inventory(std::make_unique<NpuInventory>(m_config, std::move(probeOptions))) {
    m_pool.setMaxThreadCount(4);
    // A probe on refresh would collide with the chips' own user (all-or-nothing driver).
    QPointer<ChipReservations> reservations(m_reservations);
    m_inventory->setReservedChipsProvider(
        [reservations] { return reservations ? reservations->heldChips() : QSet<int>(); });
    if (!m_config.brokerEnabled)
        return;
    WorkloadCatalog catalog;
    if (m_config.workloadCatalogPath.isEmpty())
        m_brokerError = QStringLiteral("RUNBOX_NPU_WORKLOADS is not set: no workload is offered");
    else if (QString error; !catalog.loadFile(m_config.workloadCatalogPath, &error))
        m_brokerError = QStringLiteral("the workload catalog %1 was refused: %2")
                            .arg(m_config.workloadCatalogPath, error);
    BrokerOptions options;
    options.deviceGroupsOf = [config = m_config](const QList<int>& chips) {
        Error ignored; // a chip set that does not resolve reaches no device node
        return NpuPassthrough(config).build(chips, &ignored).deviceGroups;
    };
    m_broker = new BrokerJobRunner(m_brokerError.isEmpty() ? catalog : WorkloadCatalog(),
                                   m_reservations, std::move(options), this);
}

NpuService::~NpuService() {
    delete m_broker; // records its jobs' ends in m_jobStore, destroyed with the members
    m_broker = nullptr;
    m_pool.waitForDone();
}

void NpuService::attachStore(const store::Database& database, store::LogStore* logs) {
    m_jobStore = std::make_unique<BrokerJobStore>(database, logs);
    m_jobStore->endLeftovers(); // also when the broker is now off: nothing runs on unrecorded
    if (m_broker)
        m_broker->setStore(m_jobStore.get());
}

ChipProbeOptions NpuService::probeOptionsFor(const execution::SandboxHost& host,
                                             const NpuConfig& config) {
    ChipProbeOptions options;
    sandbox::LaunchSpec spec;
    spec.workspaceDir = QStringLiteral("/nonexistent");
    spec.stateDir = host.stateDir;
    options.user = host.probeUser();
    const QStringList launch = sandbox::BwrapCommand::build(host.capability, spec).arguments;
    for (qsizetype i = 0; i + 1 < launch.size(); ++i)
        if (launch[i] == QLatin1String("--dev") && launch[i + 1] == QLatin1String("/dev")) {
            options.baseArgs = launch.mid(0, i + 2);
            break;
        }
    if (!host.capability.bwrapPath.isEmpty())
        options.bwrapPath = host.capability.bwrapPath;
    for (const QString& path : config.probeBinds)
        options.extraArgs << QStringLiteral("--ro-bind") << path << path;
    options.timeoutMs = config.probeTimeoutMs;
    return options;
}

template <typename Result>
void NpuService::runOnPool(QObject* receiver, std::function<Result()> work,
                           std::function<void(const Result&)> deliver) {
    QPointer<QObject> guard(receiver);
    const bool hasReceiver = receiver != nullptr;
    m_pool.start([this, guard, hasReceiver, work = std::move(work), deliver = std::move(deliver)] {
        Result result = work();
        QMetaObject::invokeMethod(
            this,
            [guard, hasReceiver, deliver, result] {
                if (hasReceiver && !guard)
                    return;
                deliver(result);
            },
            Qt::QueuedConnection);
    });
}

void NpuService::start(SnapshotDone onFirst) {
    if (m_firstReadStarted)
        return;
    m_firstReadStarted = true;
    NpuInventory* inventory = m_inventory.get();
    runOnPool<NpuSnapshot>(
        nullptr, [inventory] { return inventory->snapshot(false); },
        [this, onFirst](const NpuSnapshot& snapshot) {
            if (onFirst)
                onFirst(snapshot);
            const auto waiting = std::exchange(m_waitingForFirst, {});
            for (const auto& [receiver, done] : waiting)
                if (receiver)
                    done(snapshot);
        });
}

void NpuService::snapshot(bool refresh, QObject* receiver, SnapshotDone done) {
    NpuInventory* inventory = m_inventory.get();
    runOnPool<NpuSnapshot>(
        receiver, [inventory, refresh] { return inventory->snapshot(refresh); }, std::move(done));
}

void NpuService::withInventory(QObject* receiver, SnapshotDone done) {
    if (const std::optional<NpuSnapshot> cached = m_inventory->cached()) {
        // Stale: answer now, and read again in the background, so a host whose first read
        // failed (npu-smi timed out at boot) does not refuse every chip forever.
        const bool stale =
            !cached->capturedAt.isValid() ||
            cached->capturedAt.msecsTo(QDateTime::currentDateTimeUtc()) > m_config.cacheTtlMs;
        if (stale && !m_backgroundRead) {
            m_backgroundRead = true;
            NpuInventory* inventory = m_inventory.get();
            runOnPool<NpuSnapshot>(
                nullptr, [inventory] { return inventory->snapshot(false); },
                [this](const NpuSnapshot&) { m_backgroundRead = false; });
        }
        done(*cached);
        return;
    }
    m_waitingForFirst.append({QPointer<QObject>(receiver), std::move(done)});
    start();
}

void NpuService::reprobe(const QList<int>& logicIds, QObject* receiver, ProbeDone done) {
    NpuInventory* inventory = m_inventory.get();
    runOnPool<QList<ChipProbeResult>>(
        receiver, [inventory, logicIds] { return inventory->reprobe(logicIds); }, std::move(done));
}

void NpuService::resolveSelection(const QJsonValue& requested, QObject* receiver,
                                  SelectionDone done) {
    withInventory(receiver, [requested, done](const NpuSnapshot& snapshot) {
        Error error;
        const QList<int> ids = NpuPassthrough::parseSelection(requested, snapshot, &error);
        if (!error.code.isEmpty())
            return done(error, {});
        done(std::nullopt, ids);
    });
}

std::optional<Error> NpuService::checkBusy(const QList<int>& chips) const {
    if (m_reservations->policy() != ChipBusyPolicy::Refuse)
        return std::nullopt;
    const QMap<int, QString> held = m_reservations->holders();
    for (int chip : chips)
        if (held.contains(chip))
            return Error{ErrorKind::Conflict, QStringLiteral("chip_busy"),
                         QStringLiteral("NPU %1 is in use by another execution").arg(chip)};
    return std::nullopt;
}

namespace {

/// npuChips as /v1/health says it: null = all the host's chips, else the chip logic ids.
QJsonValue offeredChipsJson(const std::optional<QList<int>>& offered) {
    if (!offered)
        return QJsonValue();
    QJsonArray ids;
    for (int id : *offered)
        ids.append(id);
    return ids;
}

} // namespace

QJsonObject NpuService::healthSummary() const {
    const std::optional<NpuSnapshot> snapshot = m_inventory->cached();
    int usable = 0;
    if (snapshot)
        for (const NpuChip& chip : snapshot->chips)
            if (chip.probe && chip.probe->usable)
                ++usable;
    int heldCount = 0;
    for (int chip : m_reservations->heldChips())
        heldCount += chip >= 0 ? 1 : 0; // -1 is the broker's host queue, not a chip
    QJsonObject o{
        {"source", snapshot ? QJsonValue(snapshot->source) : QJsonValue()},
        {"reason", snapshot ? QJsonValue(snapshot->reason) : QJsonValue()},
        {"capturedAt",
         snapshot ? QJsonValue(snapshot->capturedAt.toString(Qt::ISODateWithMs)) : QJsonValue()},
        {"chips", snapshot ? int(snapshot->chips.size()) : 0},
        {"usable", usable},
        {"held", heldCount},
        {"busyPolicy", m_reservations->policy() == ChipBusyPolicy::Refuse ? "refuse" : "queue"},
        {"broker", m_broker != nullptr},
        {"workloads", m_broker ? int(m_broker->catalog().workloads().size()) : 0},
        {"offeredChips", offeredChipsJson(m_config.offeredChips)}};
    if (!m_brokerError.isEmpty())
        o.insert(QStringLiteral("brokerError"), m_brokerError);
    return o;
}

QString NpuService::summaryLine(const NpuSnapshot& snapshot) {
    if (snapshot.chips.isEmpty())
        return QStringLiteral("npu: none (%1)").arg(snapshot.reason);
    int usable = 0;
    for (const NpuChip& chip : snapshot.chips)
        if (chip.probe && chip.probe->usable)
            ++usable;
    return QStringLiteral("npu: %1 chip(s) from %2, %3 usable in a sandbox")
        .arg(snapshot.chips.size())
        .arg(snapshot.source)
        .arg(usable);
}

void NpuService::shutdown() {
    if (m_broker)
        m_broker->shutdown();
}

} // namespace runbox::npu
