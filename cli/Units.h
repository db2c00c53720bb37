#pragma once

#include <QString>

#include <optional>

namespace runbox::cli {

/// Parses a size for `runbox quotas set` and `--max-output`: a number with an optional binary
/// unit (`B`, `KiB`, `MiB`, `GiB`, `TiB`; case-insensitive; IEC 80000-13 prefixes, so 1 KiB =
/// 1024 bytes), e.g. `20GiB`, `512 MiB`, `1.5GiB`, `4096`; `unlimited` (or `0`) → 0, the
/// agent's "unlimited". Decimal units (`GB`) are refused rather than guessed. The result must
/// be a whole number of bytes. Returns std::nullopt with @p error set on bad input.
std::optional<qint64> parseBytes(const QString& text, QString* error);

/// Parses a duration in milliseconds: one or more `<number><unit>` parts with units `ms`, `s`,
/// `m`, `h` (e.g. `2h`, `1h30m`, `500ms`, `1.5s`), a bare number (milliseconds), or
/// `unlimited` → 0. Returns std::nullopt with @p error set on bad input.
std::optional<qint64> parseDurationMs(const QString& text, QString* error);

/// `unlimited` for 0, else bytes as GiB with two decimals (`20.00 GiB`, `0.50 GiB`).
QString formatGiB(qint64 bytes);
/// `unlimited` for 0, else the largest exact combination (`2h`, `1h 30m`, `45s`, `1500ms`).
QString formatDurationMs(qint64 ms);
/// A measured amount of memory (0 is 0, not unlimited): `0 B`, `864 KiB`, `12.5 MiB`, `1.25 GiB`
/// (binary units: KiB = 1024 bytes).
QString formatBytesUsed(qint64 bytes);
/// Measured CPU time (0 is 0): `0ms`, `950ms`, below 10 s in ms, else seconds with one decimal
/// (`36.1s`).
QString formatCpuMs(qint64 ms);

} // namespace runbox::cli
