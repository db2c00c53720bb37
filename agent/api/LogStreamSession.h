#pragma once

#include "agent/execution/OutputFramer.h"
#include "agent/http/HttpExchange.h"
#include "agent/http/ResponseStream.h"

#include <QObject>
#include <QPointer>

#include <functional>

namespace runbox::store {
class LogFollower;
class LogStore;
struct LogChunk;
} // namespace runbox::store

namespace runbox::api {

/// How a log stream is encoded (docs/managed.md, "Log streams").
enum class LogStreamFormat {
    Ndjson, ///< application/x-ndjson: one JSON event per line (the default)
    Frames, ///< application/vnd.runbox.log-frames: binary frames (shared/LogFrames.h)
};

/// Streams one execution's log to one client as NDJSON from a logical offset: output events
/// (bounded frames, UTF-8 carried over, base64 for other bytes), `gap` markers for bytes dropped
/// by retention, and — when the log is complete and the record final — the execution's `egress`
/// events (replayed from the store) and then the `exit` event. With
/// follow it waits for new bytes; without it ends at the current end of the log. In the Frames
/// format the same content travels as binary frames: raw output bytes as read from the log (up
/// to 1 MiB per read, one HTTP chunk per read) and the other events as JSON event frames.
/// Reading pauses while more than 1 MiB waits for the client. Deletes itself when done or when
/// the client goes.
class LogStreamSession final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LogStreamSession)
public:
    /// @p exitEvent returns the exit event when the record is final, or an empty object.
    /// @p beforeExit (optional) returns events written right before the exit event (the egress
    /// decisions of the execution, replayed from the store once it is final).
    LogStreamSession(http::HttpExchange* exchange, const store::LogStore* logs,
                     const QString& executionId, qint64 offset, bool follow,
                     std::function<QJsonObject()> exitEvent,
                     std::function<QList<QJsonObject>()> beforeExit = {},
                     LogStreamFormat format = LogStreamFormat::Ndjson, QObject* parent = nullptr);

    /// Called when the record of this execution became final.
    void onExecutionFinished();

private:
    /// One round of the pump (http::ResponseStream::pump: re-entrancy safe, run again once the
    /// client drained the queue).
    void pumpOnce();
    void finish(const QJsonObject& exitEvent);
    void write(const QJsonObject& ev);
    void writeFrame(const execution::OutputFrame& frame);
    /// Frames format: writes one read's chunks as frames in one HTTP chunk.
    void writeRawChunks(const QList<store::LogChunk>& chunks);
    /// NDJSON format: frames one read's chunks (UTF-8 carry-over, gaps) and writes the lines.
    void feedFramer(const QList<store::LogChunk>& chunks);

    http::ResponseStream* m_stream; ///< the response, its backpressure and pump
    store::LogFollower* m_follower;
    execution::OutputFramer m_framer;
    bool m_follow;
    LogStreamFormat m_format;
    std::function<QJsonObject()> m_exitEvent;
    std::function<QList<QJsonObject>()> m_beforeExit;
    bool m_logDone = false;
    bool m_finished = false;
};

} // namespace runbox::api
