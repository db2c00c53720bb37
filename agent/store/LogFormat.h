#pragma once

#include <QByteArray>
#include <QtGlobal>

/// The on-disk format of execution logs (see LogStore). All integers little-endian.
///
/// A log is one or more *segment files*: `<id>.log` (segment 0, the head) and, once retention is
/// active, `<id>.log.<n>` (n = 1, 2, …: the tail). Each file starts with a 48-byte segment
/// header, followed by records:
///
///   segment header: "RBXLOGS1" | u32 version=1 | u32 segment index | i64 logical offset of its
///                   first data byte | i64 stdout bytes before it | i64 stderr bytes before it |
///                   u32 reserved=0 | u32 CRC-32 of the 44 bytes before
///   record header:  u32 magic "RBXL" | u8 type | u8 0 | u16 0 | u32 data length |
///                   i64 logical offset of its first data byte | u32 CRC-32 of the 20 bytes before
///   record data:    `length` bytes
///
/// Record types: 1 stdout data, 2 stderr data, 3 end (data = JSON `{"lost":bool,"reason":…}`,
/// offset = the final end; it does not advance the stream). The *logical offset* counts the
/// process's output bytes of both streams together, in arrival order: the byte at logical
/// offset N is the (N+1)-th byte the agent received. Records of one segment are contiguous in
/// logical offsets; a jump between segments is a range dropped by retention (a gap).
/// A torn write (crash) shows as a trailing record whose header fails its CRC or whose data runs
/// past the end of the file; everything before it is intact.
namespace runbox::store::logformat {

constexpr int kSegmentHeaderSize = 48;
constexpr int kRecordHeaderSize = 24;
constexpr quint32 kRecordMagic = 0x4C584252; // "RBXL" read as little-endian
/// Largest data payload of one record: appends are split into records of at most this size.
constexpr qint64 kMaxRecordData = 64 * 1024;
/// Largest end-record payload.
constexpr qint64 kMaxEndPayload = 4096;

enum class RecordType : quint8 { Stdout = 1, Stderr = 2, End = 3 };

struct SegmentHeader {
    quint32 index = 0;
    qint64 startOffset = 0;
    qint64 stdoutBefore = 0;
    qint64 stderrBefore = 0;
};

struct RecordHeader {
    RecordType type = RecordType::Stdout;
    quint32 length = 0;
    qint64 offset = 0;
};

/// CRC-32 (IEEE 802.3 polynomial, as zlib's crc32) of @p size bytes.
quint32 crc32(const char* data, qsizetype size);

QByteArray encodeSegmentHeader(const SegmentHeader& header);
/// False if @p data (kSegmentHeaderSize bytes) is not a valid segment header.
bool decodeSegmentHeader(const char* data, SegmentHeader* out);

/// Writes kRecordHeaderSize bytes to @p out.
void encodeRecordHeader(const RecordHeader& header, char* out);
/// False if @p data (kRecordHeaderSize bytes) is not a valid record header (magic, CRC, type).
bool decodeRecordHeader(const char* data, RecordHeader* out);

} // namespace runbox::store::logformat
