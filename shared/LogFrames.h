#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonObject>
#include <QString>

#include <functional>

/// The binary framed log stream (`GET /v1/executions/{id}/log?format=frames`, or
/// `Accept: application/vnd.runbox.log-frames`); the wire format is specified in
/// docs/managed.md ("Framed log stream"). Modelled on Docker's multiplexed attach stream
/// (stdcopy): every frame is an 8-byte header — type (1 stdout, 2 stderr, 3 JSON event),
/// three zero bytes, the payload length as a big-endian uint32 — followed by the payload.
/// Output payloads are the raw bytes; an event payload is one compact JSON object, with the
/// same shapes as the NDJSON stream's non-output events (`gap`, `egress`, `error`, `exit`).
namespace runbox::logframes {

/// Media type of the framed stream (request it with Accept or `format=frames`).
inline constexpr char kMediaType[] = "application/vnd.runbox.log-frames";
constexpr int kHeaderSize = 8;
/// Largest payload a decoder accepts for an output frame (the agent sends at most 1 MiB).
constexpr quint32 kMaxOutputPayload = 16 * 1024 * 1024;
/// Largest payload a decoder accepts for an event frame (kept whole in memory).
constexpr quint32 kMaxEventPayload = 1024 * 1024;

enum class FrameType : quint8 { Stdout = 1, Stderr = 2, Event = 3 };

/// Appends the 8-byte header of a frame of @p type carrying @p length payload bytes.
void appendHeader(QByteArray* out, FrameType type, quint32 length);
/// Appends a whole output frame (header + @p payload; at most kMaxOutputPayload bytes).
void appendOutput(QByteArray* out, FrameType stream, QByteArrayView payload);
/// Appends an event frame holding @p event as compact JSON.
void appendEvent(QByteArray* out, const QJsonObject& event);

/// Incremental decoder: feed() it whatever arrives, in any split. Output payloads are handed
/// on as they arrive (a frame split across reads comes out in pieces, in order; nothing is
/// buffered), event payloads once whole. A header with a type other than 1–3, non-zero
/// padding bytes, or a length above the limits is a protocol error: feed() returns false and
/// refuses everything after it.
class FrameDecoder final {
public:
    /// @p onOutput gets (FrameType::Stdout or ::Stderr, bytes); @p onEvent each event object
    /// (a payload that is not a JSON object is a protocol error).
    FrameDecoder(std::function<void(FrameType, QByteArrayView)> onOutput,
                 std::function<void(const QJsonObject&)> onEvent);

    /// Consumes @p data. False on a protocol error (see errorString()).
    bool feed(QByteArrayView data);
    /// True when no frame is partly received (a stream may end only here).
    bool atFrameBoundary() const { return m_headerFill == 0 && m_remaining == 0; }
    QString errorString() const { return m_error; }

private:
    bool startFrame();

    std::function<void(FrameType, QByteArrayView)> m_onOutput;
    std::function<void(const QJsonObject&)> m_onEvent;
    char m_header[kHeaderSize] = {};
    int m_headerFill = 0;
    FrameType m_type = FrameType::Stdout;
    quint32 m_remaining = 0; ///< payload bytes of the current frame still to come
    QByteArray m_event;      ///< the event payload received so far
    QString m_error;
};

} // namespace runbox::logframes
