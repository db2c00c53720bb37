#include "console/api/NpuInventory.h"

#include <QMap>

#include <QJsonArray>

#include <algorithm>

namespace runbox::console {

namespace {
std::optional<double> realOf(const QJsonObject& o, const char* key) {
    const QJsonValue v = o.value(QLatin1String(key));
    return v.isDouble() ? std::optional<double>(v.toDouble()) : std::nullopt;
}
std::optional<qint64> integerOf(const QJsonObject& o, const char* key) {
    const QJsonValue v = o.value(QLatin1String(key));
    return v.isDouble() ? std::optional<qint64>(qint64(v.toDouble())) : std::nullopt;
}
} // namespace

NpuChip NpuChip::fromJson(const QJsonObject& o) {
    NpuChip c;
    c.logicId = o.value(QLatin1String("logicId")).toInt(-1);
    c.npuId = o.value(QLatin1String("npuId")).toInt(-1);
    c.chipId = o.value(QLatin1String("chipId")).toInt(-1);
    c.name = o.value(QLatin1String("name")).toString();
    c.supported = o.value(QLatin1String("supported")).toBool();
    c.health = o.value(QLatin1String("health")).toString();
    c.powerW = realOf(o, "powerW");
    c.temperatureC = realOf(o, "temperatureC");
    c.aiCorePercent = realOf(o, "aiCorePercent");
    c.hbmUsedMb = integerOf(o, "hbmUsedMb");
    c.hbmTotalMb = integerOf(o, "hbmTotalMb");
    const QJsonObject probe = o.value(QLatin1String("probe")).toObject();
    c.probeUsable = probe.value(QLatin1String("usable")).toBool();
    c.probeReason = probe.value(QLatin1String("reason")).toString();
    c.probeAt = probe.value(QLatin1String("at")).toString();
    return c;
}

QString NpuChip::unusableReason() const {
    if (!supported)
        return probeReason.isEmpty()
                   ? tr("%1 is not supported: only the Ascend 910 series can be selected.")
                         .arg(name.isEmpty() ? tr("This chip") : name)
                   : probeReason;
    if (!probeUsable)
        return probeReason.isEmpty() ? tr("The probe sandbox could not use this chip.")
                                     : probeReason;
    return {};
}

QColor NpuChip::healthColor() const {
    const QString h = health.toLower();
    if (h == QLatin1String("ok"))
        return QColor(0x2e, 0x7d, 0x32);
    if (h == QLatin1String("warning"))
        return QColor(0xe0, 0x8e, 0x00);
    if (h == QLatin1String("alarm") || h == QLatin1String("critical") ||
        h == QLatin1String("error"))
        return QColor(0xc6, 0x28, 0x28);
    return QColor(0x80, 0x80, 0x80);
}

QString NpuChip::holderText() const {
    if (!holderExecution.isEmpty())
        return tr("execution %1").arg(holderExecution);
    if (!holderBrokerJob.isEmpty())
        return tr("broker job %1").arg(holderBrokerJob);
    return {};
}

NpuInventory NpuInventory::fromJson(const QJsonObject& answer) {
    NpuInventory inv;
    inv.capturedAt = answer.value(QLatin1String("capturedAt")).toString();
    inv.source = answer.value(QLatin1String("source")).toString();
    inv.reason = answer.value(QLatin1String("reason")).toString();
    for (const QJsonValue& v : answer.value(QLatin1String("chips")).toArray())
        inv.chips.append(NpuChip::fromJson(v.toObject()));
    std::sort(inv.chips.begin(), inv.chips.end(),
              [](const NpuChip& a, const NpuChip& b) { return a.logicId < b.logicId; });
    for (const QJsonValue& v : answer.value(QLatin1String("held")).toArray())
        if (v.isDouble() && !inv.held.contains(v.toInt()))
            inv.held.append(v.toInt());
    std::sort(inv.held.begin(), inv.held.end());
    QMap<int, QJsonObject> holders;
    for (const QJsonValue& v : answer.value(QLatin1String("holders")).toArray())
        holders.insert(v[QLatin1String("chip")].toInt(-1), v.toObject());
    for (NpuChip& c : inv.chips) {
        c.held = inv.held.contains(c.logicId);
        const QJsonObject holder = c.held ? holders.value(c.logicId) : QJsonObject();
        c.holderExecution = holder.value(QLatin1String("execution")).toString();
        c.holderBrokerJob = holder.value(QLatin1String("brokerJob")).toString();
    }
    return inv;
}

int NpuInventory::usableCount() const {
    return int(
        std::count_if(chips.begin(), chips.end(), [](const NpuChip& c) { return c.selectable(); }));
}

int NpuInventory::heldCount() const {
    return int(std::count_if(chips.begin(), chips.end(), [](const NpuChip& c) { return c.held; }));
}

} // namespace runbox::console
