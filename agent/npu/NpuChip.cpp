#include "agent/npu/NpuChip.h"

#include <QJsonArray>
#include <QRegularExpression>

namespace runbox::npu {

namespace {

QJsonValue isoOrNull(const QDateTime& at) {
    return at.isValid() ? QJsonValue(at.toUTC().toString(Qt::ISODateWithMs)) : QJsonValue();
}

template <typename T> QJsonValue optionalValue(const std::optional<T>& value) {
    return value ? QJsonValue(static_cast<double>(*value)) : QJsonValue();
}

QJsonValue stringOrNull(const QString& text) {
    return text.isEmpty() ? QJsonValue() : QJsonValue(text);
}

} // namespace

QJsonObject ChipProbeResult::toJson() const {
    return {{"usable", usable}, {"reason", stringOrNull(reason)}, {"at", isoOrNull(at)}};
}

ChipSupport ChipSupport::classify(const QString& chipName) {
    const QString trimmed = chipName.trimmed();
    if (trimmed.isEmpty())
        return {false, QStringLiteral("the chip model is unknown: only the Ascend 910 series "
                                      "(910A, 910B, 910C) can be passed into a sandbox")};
    // "Ascend 910B3", "Ascend910", "910B3", "Ascend910_9392" → "910B3", "910", "910_9392".
    QString model = trimmed.toUpper();
    model.remove(QRegularExpression(QStringLiteral("[\\s-]")));
    if (model.startsWith(QLatin1String("ASCEND")))
        model = model.mid(6);
    if (model.startsWith(QLatin1String("910")))
        return {true, {}};
    return {false, QStringLiteral("%1 is not supported: only the Ascend 910 series (910A, 910B, "
                                  "910C) can be passed into a sandbox")
                       .arg(trimmed)};
}

QJsonObject NpuChip::toJson() const {
    return {{"logicId", logicId},
            {"npuId", npuId},
            {"chipId", chipId},
            {"name", name},
            {"supported", supported},
            {"unsupportedReason", stringOrNull(unsupportedReason)},
            {"health", stringOrNull(health)},
            {"powerW", optionalValue(powerW)},
            {"temperatureC", optionalValue(temperatureC)},
            {"aiCorePercent", optionalValue(aiCorePercent)},
            {"hbmUsedMb", optionalValue(hbmUsedMb)},
            {"hbmTotalMb", optionalValue(hbmTotalMb)},
            {"busId", stringOrNull(busId)},
            {"probe", probe ? QJsonValue(probe->toJson()) : QJsonValue()}};
}

QJsonObject NpuSnapshot::toJson() const {
    QJsonArray list;
    for (const NpuChip& chip : chips)
        list.append(chip.toJson());
    return {{"capturedAt", isoOrNull(capturedAt)},
            {"source", source},
            {"reason", stringOrNull(reason)},
            {"chips", list}};
}

const NpuChip* NpuSnapshot::find(int logicId) const {
    for (const NpuChip& chip : chips)
        if (chip.logicId == logicId)
            return &chip;
    return nullptr;
}

} // namespace runbox::npu
