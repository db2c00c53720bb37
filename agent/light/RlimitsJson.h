#pragma once

#include "agent/Error.h"
#include "agent/light/helper/Rlimits.h"

#include <QJsonObject>

#include <optional>

namespace runbox::light {

/// Reads a light workspace's limits from the create request's JSON:
/// `{"maxProcs": N, "maxMemoryMb": N, "maxOpenFiles": N, "maxFileSizeMb": N,
///   "maxCpuSeconds": N}` — every field optional (defaults: Rlimits), each a JSON number that is a
/// whole value inside Rlimits' range. Other keys are ignored (they belong to the caller).
class RlimitsJson final {
public:
    /// The parsed limits, or nullopt with @p error = InvalidArgument (400) `invalid_limit` naming
    /// the field (wrong type, fraction, NaN/inf, out of range — checked on the double before any
    /// conversion, so nothing overflows).
    static std::optional<Rlimits> fromJson(const QJsonObject& request, Error* error);
    /// The limits as the same JSON keys (for reporting a workspace's confinement).
    static QJsonObject toJson(const Rlimits& limits);
};

} // namespace runbox::light
