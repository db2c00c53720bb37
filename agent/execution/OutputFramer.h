#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>

namespace runbox::execution {

/// One piece of a stdout or stderr stream as sent in an event.
struct OutputFrame {
    QByteArray bytes;
    qint64 offset = 0; ///< byte offset of bytes[0] in its stream
    /// `{"type":stream,"offset":N,"data":text}` when the bytes are valid UTF-8, otherwise
    /// `{"type":stream,"offset":N,"dataBase64":…}` (RFC 4648 §4): no byte is ever lost.
    QJsonObject toEvent(const QString& stream) const;
};

/// Cuts one output stream into bounded frames as bytes arrive, without waiting for newlines.
/// A multi-byte UTF-8 character split across reads is held back (at most 3 bytes) and sent with
/// the next read, so text frames stay valid; whatever is held is flushed at the end.
class OutputFramer final {
public:
    explicit OutputFramer(qsizetype maxFrameBytes = 64 * 1024) : m_maxFrame(maxFrameBytes) {}

    QList<OutputFrame> feed(const QByteArray& bytes);
    /// The held-back tail, if any (end of stream).
    QList<OutputFrame> flush();
    /// Total bytes fed so far.
    qint64 totalBytes() const { return m_offset + m_carry.size(); }

private:
    void emitFrames(const QByteArray& bytes, QList<OutputFrame>* out);

    qsizetype m_maxFrame;
    QByteArray m_carry;
    qint64 m_offset = 0; ///< offset of the next byte to be framed
};

/// Strict UTF-8 check (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
bool isValidUtf8(const char* data, qsizetype size);
/// Length of an incomplete UTF-8 sequence at the end of @p data that could still be completed
/// by further bytes (0..3).
qsizetype incompleteUtf8Tail(const QByteArray& data);

} // namespace runbox::execution
