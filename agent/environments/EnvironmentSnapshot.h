#pragma once

#include "agent/Error.h"

#include <QByteArray>
#include <QJsonArray>
#include <QString>

#include <optional>

namespace runbox::environments {

/// What a revision has installed (docs/environments.md "Snapshot"): a JSON array of
/// `{"name","version"}`, sorted by name (case-insensitive), serialised compactly; its SHA-256
/// (hex) is stored next to it and checked again every time it is read, so a row changed behind
/// the agent's back is reported, never served.
struct EnvironmentSnapshot {
    QByteArray json; ///< the canonical bytes
    QString sha256;  ///< lower-case hex of SHA-256(json)

    /// Parses `pip list --format json` output (an array of objects with string `name` and
    /// `version`; other members ignored), at most @p maxBytes. Errors: InvalidArgument
    /// `invalid_snapshot` naming what is wrong.
    static std::optional<Error> fromPipList(const QByteArray& pipJson, EnvironmentSnapshot* out,
                                            qsizetype maxBytes = 1 << 20);
    /// Checks stored @p json against stored @p sha256 and parses it. Internal (500)
    /// `snapshot_corrupt` when they differ or the bytes are not an array.
    static std::optional<Error> verify(const QByteArray& json, const QString& sha256,
                                       QJsonArray* packages);
};

} // namespace runbox::environments
