#include "agent/light/RlimitsJson.h"

#include <QJsonValue>

#include <cmath>

namespace runbox::light {

namespace {

/// Reads @p key as a whole number in [min, max]; absent keeps @p out. False with @p error.
bool readWhole(const QJsonObject& request, const char* key, std::uint64_t min, std::uint64_t max,
               std::uint64_t* out, Error* error) {
    const QJsonValue value = request.value(QLatin1String(key));
    if (value.isUndefined() || value.isNull())
        return true;
    const auto fail = [&](const QString& why) {
        if (error)
            *error = Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_limit"),
                           QStringLiteral("%1 %2").arg(QLatin1String(key), why)};
        return false;
    };
    if (!value.isDouble())
        return fail(QStringLiteral("must be a number"));
    const double number = value.toDouble();
    if (!std::isfinite(number) || std::floor(number) != number)
        return fail(QStringLiteral("must be a whole number"));
    // Compare as doubles first: max ≤ 2^44 here, exactly representable, so the cast below is safe.
    if (number < static_cast<double>(min) || number > static_cast<double>(max))
        return fail(QStringLiteral("must be between %1 and %2").arg(min).arg(max));
    *out = static_cast<std::uint64_t>(number);
    return true;
}

/// @p mebibytes × 2^20 with an overflow check (cannot fail for validated input; kept honest).
bool mibToBytes(std::uint64_t mebibytes, std::uint64_t* bytes) {
    return !__builtin_mul_overflow(mebibytes, std::uint64_t{1} << 20, bytes);
}

} // namespace

std::optional<Rlimits> RlimitsJson::fromJson(const QJsonObject& request, Error* error) {
    Rlimits limits;
    std::uint64_t memoryMb = limits.maxMemoryBytes >> 20;
    std::uint64_t fileSizeMb = limits.maxFileSizeBytes >> 20;
    if (!readWhole(request, "maxProcs", Rlimits::kProcsMin, Rlimits::kProcsMax, &limits.maxProcs,
                   error) ||
        !readWhole(request, "maxMemoryMb", Rlimits::kMemoryMbMin, Rlimits::kMemoryMbMax, &memoryMb,
                   error) ||
        !readWhole(request, "maxOpenFiles", Rlimits::kOpenFilesMin, Rlimits::kOpenFilesMax,
                   &limits.maxOpenFiles, error) ||
        !readWhole(request, "maxFileSizeMb", Rlimits::kFileSizeMbMin, Rlimits::kFileSizeMbMax,
                   &fileSizeMb, error) ||
        !readWhole(request, "maxCpuSeconds", Rlimits::kCpuSecondsMin, Rlimits::kCpuSecondsMax,
                   &limits.maxCpuSeconds, error))
        return std::nullopt;
    if (!mibToBytes(memoryMb, &limits.maxMemoryBytes) ||
        !mibToBytes(fileSizeMb, &limits.maxFileSizeBytes)) {
        if (error)
            *error = Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_limit"),
                           QStringLiteral("limit too large")};
        return std::nullopt;
    }
    std::string why;
    if (!limits.validate(&why)) {
        if (error)
            *error = Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_limit"),
                           QString::fromStdString(why)};
        return std::nullopt;
    }
    return limits;
}

QJsonObject RlimitsJson::toJson(const Rlimits& limits) {
    return QJsonObject{
        {QStringLiteral("maxProcs"), static_cast<double>(limits.maxProcs)},
        {QStringLiteral("maxMemoryMb"), static_cast<double>(limits.maxMemoryBytes >> 20)},
        {QStringLiteral("maxOpenFiles"), static_cast<double>(limits.maxOpenFiles)},
        {QStringLiteral("maxFileSizeMb"), static_cast<double>(limits.maxFileSizeBytes >> 20)},
        {QStringLiteral("maxCpuSeconds"), static_cast<double>(limits.maxCpuSeconds)},
    };
}

} // namespace runbox::light
