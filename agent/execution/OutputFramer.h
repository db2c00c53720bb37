#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>

namespace runbox::execution {

/// The two output streams of an execution.
enum class OutputStream { Stdout = 0, Stderr = 1 };

/// One piece of output as sent in an event.
struct OutputFrame {
    OutputStream stream = OutputStream::Stdout;
    QByteArray bytes;
    qint64 offset = 0; ///< logical offset of bytes[0]: stdout and stderr share one offset space

    /// `{"type":"stdout"|"stderr","offset":N,"data":text}` when the bytes are valid UTF-8 text,
    /// otherwise `{…,"dataBase64":…}` (RFC 4648 §4): no byte is ever lost. "Text" also means
    /// few control characters: JSON spells each one other than \b \f \n \r \t as a 6-byte
    /// `\u00XX` (RFC 8259 §7), so a frame where they exceed 1/16 of the bytes (e.g. binary
    /// zeros) goes as base64, which costs 4/3 at most. Clients must accept both fields.
    QJsonObject toEvent() const;
    /// The same event as one compact NDJSON line (ending in '\n'), written directly from the
    /// bytes: no QString or QJsonDocument round trip, for high-volume streams.
    QByteArray toJsonLine() const;
    /// Whether toEvent()/toJsonLine() use `data` (true) or `dataBase64`.
    bool sendsAsText() const;
};

/// Cuts an execution's output into bounded frames as bytes arrive, without waiting for
/// newlines. Offsets are *logical*: every byte of stdout and stderr gets the next number in
/// arrival order (the same numbering as the execution log, so `?offset=N` resumes exactly), and
/// each frame covers a contiguous range. A multi-byte UTF-8 character split across reads is held
/// back (at most 3 bytes) and sent with the next read of the same stream; if the other stream
/// speaks first, the held bytes are sent on their own (as base64) to keep ranges contiguous.
class OutputFramer final {
public:
    explicit OutputFramer(qsizetype maxFrameBytes = 64 * 1024, qint64 startOffset = 0)
        : m_maxFrame(maxFrameBytes), m_offset(startOffset) {}

    QList<OutputFrame> feed(OutputStream stream, const QByteArray& bytes);
    /// The held-back bytes, if any (end of output, or before a gap).
    QList<OutputFrame> flush();
    /// Moves the next logical offset forward (after a retention gap in a replayed log).
    void skipTo(qint64 offset);
    /// Logical offset of the next byte to arrive.
    qint64 nextOffset() const { return m_offset; }
    qint64 bytesFed(OutputStream stream) const { return m_fed[int(stream)]; }

private:
    void cut(OutputStream stream, const QByteArray& bytes, qint64 offset, QList<OutputFrame>* out);

    qsizetype m_maxFrame;
    qint64 m_offset; ///< logical offset of the next byte fed
    QByteArray m_carry;
    OutputStream m_carryStream = OutputStream::Stdout;
    qint64 m_carryOffset = 0;
    qint64 m_fed[2] = {0, 0};
};

/// Strict UTF-8 check (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
bool isValidUtf8(const char* data, qsizetype size);
/// Length of an incomplete UTF-8 sequence at the end of @p data that could still be completed
/// by further bytes (0..3).
qsizetype incompleteUtf8Tail(const QByteArray& data);

} // namespace runbox::execution
