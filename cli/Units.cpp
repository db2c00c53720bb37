#include "cli/Units.h"

#include <QRegularExpression>

#include <limits>

namespace runbox::cli {

namespace {

constexpr qint64 kMax = std::numeric_limits<qint64>::max();

/// @p digits "123" and @p fraction "45" times @p unit, exactly; std::nullopt when the product
/// is not whole (@p whole false) or does not fit.
std::optional<qint64> scale(const QString& digits, const QString& fraction, qint64 unit,
                            bool* whole) {
    *whole = true;
    bool ok = false;
    const qint64 integer = digits.isEmpty() ? 0 : digits.toLongLong(&ok);
    if (!digits.isEmpty() && !ok)
        return std::nullopt;
    if (integer > kMax / unit)
        return std::nullopt;
    qint64 value = integer * unit;
    if (!fraction.isEmpty()) {
        if (fraction.size() > 12)
            return std::nullopt;
        qint64 denominator = 1;
        for (qsizetype i = 0; i < fraction.size(); ++i)
            denominator *= 10;
        const qint64 numerator = fraction.toLongLong();
        // numerator * unit / denominator, exact (128-bit: unit ≤ 2^40, numerator < 10^12).
        const __int128 product = __int128(numerator) * unit;
        if (product % denominator != 0) {
            *whole = false;
            return std::nullopt;
        }
        const __int128 part = product / denominator;
        if (part > kMax - value)
            return std::nullopt;
        value += qint64(part);
    }
    return value;
}

} // namespace

std::optional<qint64> parseBytes(const QString& input, QString* error) {
    const QString text = input.trimmed();
    if (text.compare(QLatin1String("unlimited"), Qt::CaseInsensitive) == 0)
        return 0;
    static const QRegularExpression pattern(
        QStringLiteral("^(\\d+)(?:\\.(\\d+))?\\s*([A-Za-z]*)$"));
    const QRegularExpressionMatch m = pattern.match(text);
    if (!m.hasMatch()) {
        *error = QStringLiteral("\"%1\" is not a size (e.g. 20GiB, 512MiB, 4096, unlimited)")
                     .arg(input.left(40));
        return std::nullopt;
    }
    const QString unitName = m.captured(3).toLower();
    qint64 unit = 0;
    if (unitName.isEmpty() || unitName == QLatin1String("b"))
        unit = 1;
    else if (unitName == QLatin1String("kib"))
        unit = qint64(1) << 10;
    else if (unitName == QLatin1String("mib"))
        unit = qint64(1) << 20;
    else if (unitName == QLatin1String("gib"))
        unit = qint64(1) << 30;
    else if (unitName == QLatin1String("tib"))
        unit = qint64(1) << 40;
    if (unit == 0) {
        *error = QStringLiteral("unknown size unit \"%1\" (use B, KiB, MiB, GiB or TiB)")
                     .arg(m.captured(3).left(10));
        return std::nullopt;
    }
    bool whole = true;
    const auto value = scale(m.captured(1), m.captured(2), unit, &whole);
    if (!value)
        *error = whole
                     ? QStringLiteral("\"%1\" is too large").arg(input.left(40))
                     : QStringLiteral("\"%1\" is not a whole number of bytes").arg(input.left(40));
    return value;
}

std::optional<qint64> parseDurationMs(const QString& input, QString* error) {
    const QString text = input.trimmed();
    if (text.compare(QLatin1String("unlimited"), Qt::CaseInsensitive) == 0)
        return 0;
    const auto bad = [&] {
        *error = QStringLiteral("\"%1\" is not a duration (e.g. 2h, 1h30m, 90s, 500ms, "
                                "unlimited)")
                     .arg(input.left(40));
        return std::nullopt;
    };
    static const QRegularExpression bare(QStringLiteral("^\\d+$"));
    if (bare.match(text).hasMatch()) {
        bool ok = false;
        const qint64 ms = text.toLongLong(&ok);
        if (!ok)
            return bad();
        return ms;
    }
    static const QRegularExpression part(QStringLiteral("(\\d+)(?:\\.(\\d+))?(ms|s|m|h)"));
    qint64 total = 0;
    qsizetype pos = 0;
    auto it = part.globalMatch(text);
    if (!it.hasNext())
        return bad();
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        if (m.capturedStart() != pos)
            return bad();
        pos = m.capturedEnd();
        const QString unitName = m.captured(3);
        const qint64 unit = unitName == QLatin1String("ms")  ? 1
                            : unitName == QLatin1String("s") ? 1000
                            : unitName == QLatin1String("m") ? 60 * 1000
                                                             : 3600 * 1000;
        bool whole = true;
        const auto value = scale(m.captured(1), m.captured(2), unit, &whole);
        if (!value) {
            *error = whole ? QStringLiteral("\"%1\" is too long").arg(input.left(40))
                           : QStringLiteral("\"%1\" is not a whole number of milliseconds")
                                 .arg(input.left(40));
            return std::nullopt;
        }
        if (*value > kMax - total)
            return bad();
        total += *value;
    }
    if (pos != text.size())
        return bad();
    return total;
}

QString formatGiB(qint64 bytes) {
    if (bytes == 0)
        return QStringLiteral("unlimited");
    return QStringLiteral("%1 GiB").arg(double(bytes) / double(qint64(1) << 30), 0, 'f', 2);
}

QString formatDurationMs(qint64 ms) {
    if (ms == 0)
        return QStringLiteral("unlimited");
    if (ms % 1000 != 0)
        return QStringLiteral("%1ms").arg(ms);
    qint64 s = ms / 1000;
    QStringList parts;
    if (s >= 3600) {
        parts << QStringLiteral("%1h").arg(s / 3600);
        s %= 3600;
    }
    if (s >= 60) {
        parts << QStringLiteral("%1m").arg(s / 60);
        s %= 60;
    }
    if (s > 0)
        parts << QStringLiteral("%1s").arg(s);
    return parts.join(QLatin1Char(' '));
}

QString formatBytesUsed(qint64 bytes) {
    constexpr qint64 kKiB = 1024, kMiB = kKiB << 10, kGiB = kMiB << 10;
    if (bytes < kKiB)
        return QStringLiteral("%1 B").arg(bytes);
    if (bytes < kMiB)
        return QStringLiteral("%1 KiB").arg(bytes / kKiB);
    if (bytes < kGiB)
        return QStringLiteral("%1 MiB").arg(double(bytes) / double(kMiB), 0, 'f', 1);
    return QStringLiteral("%1 GiB").arg(double(bytes) / double(kGiB), 0, 'f', 2);
}

QString formatCpuMs(qint64 ms) {
    if (ms < 10000)
        return QStringLiteral("%1ms").arg(ms);
    return QStringLiteral("%1s").arg(double(ms) / 1000.0, 0, 'f', 1);
}

} // namespace runbox::cli
