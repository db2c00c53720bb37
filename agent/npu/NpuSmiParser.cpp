#include "agent/npu/NpuSmiParser.h"

#include <QHash>
#include <QLocale>
#include <QRegularExpression>

#include <algorithm>

namespace runbox::npu {

namespace {

constexpr int kMaxLogicId = 1023;

std::optional<int> toInt(const QString& token, int min, int max) {
    bool ok = false;
    const int value = token.toInt(&ok);
    if (!ok || value < min || value > max)
        return std::nullopt;
    return value;
}

bool isAbsent(const QString& token) {
    return token == QLatin1String("NA") || token == QLatin1String("-") ||
           token == QLatin1String("N/A");
}

QStringList words(const QString& cell) {
    static const QRegularExpression space(QStringLiteral("\\s+"));
    return cell.split(space, Qt::SkipEmptyParts);
}

/// Cells of a `| a | b | c |` row, trimmed; empty when the line is not a complete row.
QStringList rowCells(const QString& line) {
    const QString trimmed = line.trimmed();
    if (trimmed.size() < 2 || !trimmed.startsWith(QLatin1Char('|')) ||
        !trimmed.endsWith(QLatin1Char('|')))
        return {};
    QStringList cells = trimmed.mid(1, trimmed.size() - 2).split(QLatin1Char('|'));
    for (QString& cell : cells)
        cell = cell.trimmed();
    return cells;
}

struct CardRow {
    int npuId = -1;
    QString name;
    QString health;
    std::optional<double> powerW;
    std::optional<int> temperatureC;
};

std::optional<CardRow> parseCardRow(const QStringList& cells) {
    const QStringList left = words(cells[0]);
    if (left.size() < 2)
        return std::nullopt;
    const auto npuId = toInt(left[0], 0, 1 << 20);
    if (!npuId || toInt(left[1], 0, 1 << 20))
        return std::nullopt; // a chip row has a number there
    static const QRegularExpression healthWord(QStringLiteral("^[A-Za-z][A-Za-z ]{0,31}$"));
    if (!healthWord.match(cells[1]).hasMatch())
        return std::nullopt;
    const QStringList right = words(cells[2]);
    if (right.size() < 2)
        return std::nullopt;
    CardRow row;
    row.npuId = *npuId;
    row.name = left.mid(1).join(QLatin1Char(' '));
    row.health = cells[1];
    if (!isAbsent(right[0])) {
        bool ok = false;
        const double power = QLocale::c().toDouble(right[0], &ok);
        if (!ok || power < 0 || power > 100000)
            return std::nullopt;
        row.powerW = power;
    }
    if (!isAbsent(right[1])) {
        row.temperatureC = toInt(right[1], -100, 300);
        if (!row.temperatureC)
            return std::nullopt;
    }
    return row;
}

std::optional<NpuSmiReading> parseChipRow(const QStringList& cells, const CardRow& card) {
    const QStringList left = words(cells[0]);
    if (left.isEmpty() || left.size() > 2)
        return std::nullopt;
    const auto chipId = toInt(left[0], 0, 255);
    if (!chipId || (left.size() == 2 && !toInt(left[1], 0, 1 << 20)))
        return std::nullopt;
    static const QRegularExpression busId(
        QStringLiteral("^[0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\\.[0-7]$"));
    const bool busAbsent = isAbsent(cells[1]);
    if (!busAbsent && !busId.match(cells[1]).hasMatch())
        return std::nullopt;
    static const QRegularExpression right(
        QStringLiteral("^(\\d+|NA|-)\\s+(\\d+|NA|-)\\s*/\\s*(\\d+|NA|-)(?:\\s+(\\d+|NA|-)\\s*/"
                       "\\s*(\\d+|NA|-))?$"));
    const QRegularExpressionMatch m = right.match(cells[2]);
    if (!m.hasMatch())
        return std::nullopt;
    NpuSmiReading reading;
    reading.npuId = card.npuId;
    reading.chipId = *chipId;
    reading.name = card.name;
    reading.health = card.health;
    reading.powerW = card.powerW;
    reading.temperatureC = card.temperatureC;
    reading.busId = busAbsent ? QString() : cells[1].toUpper();
    if (!isAbsent(m.captured(1)))
        reading.aiCorePercent = toInt(m.captured(1), 0, 100);
    if (m.lastCapturedIndex() >= 5) { // Memory-Usage then HBM-Usage: keep the HBM pair
        if (!isAbsent(m.captured(4)))
            reading.hbmUsedMb = m.captured(4).toLongLong();
        if (!isAbsent(m.captured(5)))
            reading.hbmTotalMb = m.captured(5).toLongLong();
    }
    return reading;
}

bool startsProcessTable(const QString& line) {
    return line.contains(QLatin1String("Process id"), Qt::CaseInsensitive) ||
           line.contains(QLatin1String("Process name"), Qt::CaseInsensitive) ||
           line.contains(QLatin1String("No running processes"), Qt::CaseInsensitive);
}

} // namespace

QList<NpuSmiMappingRow> NpuSmiParser::parseMapping(const QString& text) {
    QStringList lines = text.split(QLatin1Char('\n'));
    if (!text.endsWith(QLatin1Char('\n')))
        lines.removeLast(); // unterminated: the output was cut inside this line
    QList<NpuSmiMappingRow> rows;
    for (const QString& line : lines) {
        const QStringList tokens = words(line);
        if (tokens.size() < 4)
            continue;
        const auto npuId = toInt(tokens[0], 0, 1 << 20);
        const auto chipId = toInt(tokens[1], 0, 255);
        if (!npuId || !chipId || tokens[2] == QLatin1String("-"))
            continue; // header, garbage or the card's Mcu
        const auto logicId = toInt(tokens[2], 0, kMaxLogicId);
        if (!logicId)
            continue;
        rows.append({*npuId, *chipId, *logicId, tokens.mid(3).join(QLatin1Char(' '))});
    }
    return rows;
}

QList<NpuSmiReading> NpuSmiParser::parseInfo(const QString& text) {
    QList<NpuSmiReading> readings;
    std::optional<CardRow> card;
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        if (startsProcessTable(line))
            break;
        const QStringList cells = rowCells(line);
        if (cells.size() != 3)
            continue; // borders, the version banner, anything else
        if (auto parsed = parseCardRow(cells)) {
            card = parsed;
            continue;
        }
        if (!card)
            continue;
        if (auto reading = parseChipRow(cells, *card))
            readings.append(*reading);
    }
    return readings;
}

QList<NpuChip> NpuSmiParser::join(const QList<NpuSmiMappingRow>& mapping,
                                  const QList<NpuSmiReading>& readings) {
    QHash<QPair<int, int>, const NpuSmiReading*> byChip;
    for (const NpuSmiReading& reading : readings)
        byChip.insert({reading.npuId, reading.chipId}, &reading);
    QList<NpuChip> chips;
    QSet<int> seen;
    for (const NpuSmiMappingRow& row : mapping) {
        if (seen.contains(row.logicId))
            continue;
        seen.insert(row.logicId);
        NpuChip chip;
        chip.logicId = row.logicId;
        chip.npuId = row.npuId;
        chip.chipId = row.chipId;
        chip.name = row.name;
        const ChipSupport support = ChipSupport::classify(row.name);
        chip.supported = support.supported;
        chip.unsupportedReason = support.reason;
        if (const NpuSmiReading* reading = byChip.value({row.npuId, row.chipId})) {
            chip.health = reading->health;
            chip.powerW = reading->powerW;
            chip.temperatureC = reading->temperatureC;
            chip.aiCorePercent = reading->aiCorePercent;
            chip.hbmUsedMb = reading->hbmUsedMb;
            chip.hbmTotalMb = reading->hbmTotalMb;
            chip.busId = reading->busId;
        }
        chips.append(chip);
    }
    std::sort(chips.begin(), chips.end(),
              [](const NpuChip& a, const NpuChip& b) { return a.logicId < b.logicId; });
    return chips;
}

} // namespace runbox::npu
