#include "agent/store/LogFormat.h"

#include <QtEndian>

#include <array>
#include <cstring>

namespace runbox::store::logformat {

namespace {

constexpr char kSegmentMagic[8] = {'R', 'B', 'X', 'L', 'O', 'G', 'S', '1'};
constexpr quint32 kVersion = 1;

constexpr std::array<quint32, 256> makeCrcTable() {
    std::array<quint32, 256> table{};
    for (quint32 i = 0; i < 256; ++i) {
        quint32 c = i;
        for (int k = 0; k < 8; ++k)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
    return table;
}

constexpr std::array<quint32, 256> kCrcTable = makeCrcTable();

template <typename T> void put(char* out, int at, T value) {
    qToLittleEndian<T>(value, out + at);
}

template <typename T> T get(const char* data, int at) {
    return qFromLittleEndian<T>(data + at);
}

} // namespace

quint32 crc32(const char* data, qsizetype size) {
    quint32 c = 0xFFFFFFFFu;
    for (qsizetype i = 0; i < size; ++i)
        c = kCrcTable[(c ^ static_cast<quint8>(data[i])) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

QByteArray encodeSegmentHeader(const SegmentHeader& header) {
    QByteArray out(kSegmentHeaderSize, '\0');
    char* p = out.data();
    std::memcpy(p, kSegmentMagic, sizeof kSegmentMagic);
    put<quint32>(p, 8, kVersion);
    put<quint32>(p, 12, header.index);
    put<qint64>(p, 16, header.startOffset);
    put<qint64>(p, 24, header.stdoutBefore);
    put<qint64>(p, 32, header.stderrBefore);
    put<quint32>(p, 40, 0);
    put<quint32>(p, 44, crc32(p, 44));
    return out;
}

bool decodeSegmentHeader(const char* data, SegmentHeader* out) {
    if (std::memcmp(data, kSegmentMagic, sizeof kSegmentMagic) != 0 ||
        get<quint32>(data, 8) != kVersion || get<quint32>(data, 44) != crc32(data, 44))
        return false;
    out->index = get<quint32>(data, 12);
    out->startOffset = get<qint64>(data, 16);
    out->stdoutBefore = get<qint64>(data, 24);
    out->stderrBefore = get<qint64>(data, 32);
    return out->startOffset >= 0 && out->stdoutBefore >= 0 && out->stderrBefore >= 0;
}

void encodeRecordHeader(const RecordHeader& header, char* out) {
    put<quint32>(out, 0, kRecordMagic);
    out[4] = static_cast<char>(header.type);
    out[5] = 0;
    put<quint16>(out, 6, 0);
    put<quint32>(out, 8, header.length);
    put<qint64>(out, 12, header.offset);
    put<quint32>(out, 20, crc32(out, 20));
}

bool decodeRecordHeader(const char* data, RecordHeader* out) {
    if (get<quint32>(data, 0) != kRecordMagic || get<quint32>(data, 20) != crc32(data, 20))
        return false;
    const auto type = static_cast<quint8>(data[4]);
    if (type < 1 || type > 3)
        return false;
    out->type = static_cast<RecordType>(type);
    out->length = get<quint32>(data, 8);
    out->offset = get<qint64>(data, 12);
    if (out->offset < 0)
        return false;
    if (out->type == RecordType::End)
        return out->length <= kMaxEndPayload;
    return out->length > 0 && out->length <= kMaxRecordData;
}

} // namespace runbox::store::logformat
