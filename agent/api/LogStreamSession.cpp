#include "agent/api/LogStreamSession.h"

#include "agent/store/LogFollower.h"
#include "agent/store/LogStore.h"
#include "shared/LogFrames.h"

#include <QTimer>

namespace runbox::api {

namespace {
constexpr qint64 kReadBytes = 256 * 1024;
/// Frames: bigger reads, fewer rounds (each read's frames go out as one HTTP chunk).
constexpr qint64 kFramesReadBytes = 1024 * 1024;
} // namespace

LogStreamSession::LogStreamSession(http::HttpExchange* exchange, const store::LogStore* logs,
                                   const QString& executionId, qint64 offset, bool follow,
                                   std::function<QJsonObject()> exitEvent,
                                   std::function<QList<QJsonObject>()> beforeExit,
                                   LogStreamFormat format, QObject* parent)
    : QObject(parent), m_stream(new http::ResponseStream(exchange, {}, this)),
      m_follower(new store::LogFollower(logs, executionId, offset, this)),
      m_framer(64 * 1024, offset), m_follow(follow), m_format(format),
      m_exitEvent(std::move(exitEvent)), m_beforeExit(std::move(beforeExit)) {
    m_stream->begin(format == LogStreamFormat::Frames ? QByteArray(logframes::kMediaType)
                                                      : QByteArray("application/x-ndjson"));
    m_stream->setPump([this] { pumpOnce(); });
    connect(m_follower, &store::LogFollower::readyRead, m_stream, &http::ResponseStream::pump);
    connect(exchange, &http::HttpExchange::clientGone, this, &QObject::deleteLater);
    connect(exchange, &QObject::destroyed, this, &QObject::deleteLater);
}

void LogStreamSession::write(const QJsonObject& ev) {
    if (m_format == LogStreamFormat::Frames) {
        QByteArray frame;
        logframes::appendEvent(&frame, ev);
        m_stream->writeChunk(frame);
        return;
    }
    m_stream->writeEvent(ev);
}

void LogStreamSession::writeRawChunks(const QList<store::LogChunk>& chunks) {
    qint64 size = 0;
    for (const store::LogChunk& chunk : chunks)
        size += logframes::kHeaderSize + chunk.data.size();
    QByteArray batch;
    batch.reserve(size);
    for (const store::LogChunk& chunk : chunks) {
        if (chunk.kind == store::LogChunk::Kind::Gap) {
            logframes::appendEvent(
                &batch, {{"type", "gap"}, {"offset", chunk.offset}, {"bytes", chunk.gapBytes}});
            continue;
        }
        logframes::appendOutput(&batch,
                                chunk.kind == store::LogChunk::Kind::Stdout
                                    ? logframes::FrameType::Stdout
                                    : logframes::FrameType::Stderr,
                                chunk.data);
    }
    m_stream->writeChunk(batch);
}

void LogStreamSession::writeFrame(const execution::OutputFrame& frame) {
    m_stream->writeChunk(frame.toJsonLine());
}

void LogStreamSession::feedFramer(const QList<store::LogChunk>& chunks) {
    for (const store::LogChunk& chunk : chunks) {
        if (chunk.kind == store::LogChunk::Kind::Gap) {
            for (const auto& f : m_framer.flush())
                writeFrame(f);
            write({{"type", "gap"}, {"offset", chunk.offset}, {"bytes", chunk.gapBytes}});
            m_framer.skipTo(chunk.endOffset());
            continue;
        }
        m_framer.skipTo(chunk.offset);
        const auto stream = chunk.kind == store::LogChunk::Kind::Stdout
                                ? execution::OutputStream::Stdout
                                : execution::OutputStream::Stderr;
        for (const auto& f : m_framer.feed(stream, chunk.data))
            writeFrame(f);
    }
}

void LogStreamSession::pumpOnce() {
    if (m_finished || !m_stream->exchange())
        return;
    while (m_stream->exchange() && m_stream->hasRoom()) {
        store::LogReadResult r;
        const bool frames = m_format == LogStreamFormat::Frames;
        if (auto err = m_follower->readNext(frames ? kFramesReadBytes : kReadBytes, &r)) {
            if (err->kind == ErrorKind::NotFound) {
                // No log yet: it has not started (readyRead comes when it does), or it ended
                // without ever running (cancelled while queued, set-up failed).
                const QJsonObject exit = m_exitEvent();
                if (!exit.isEmpty() || !m_follow)
                    finish(exit);
                return;
            }
            write({{"type", "error"}, {"code", err->code}, {"message", err->message}});
            return finish({});
        }
        if (frames)
            writeRawChunks(r.chunks); // no framer: nothing is carried over between reads
        else
            feedFramer(r.chunks);
        if (r.atEnd()) {
            m_logDone = true;
            break;
        }
        if (r.chunks.isEmpty()) {
            if (!m_follow) {
                for (const auto& f : m_framer.flush())
                    writeFrame(f);
                return finish(m_exitEvent());
            }
            return; // wait for readyRead
        }
    }
    if (m_logDone) {
        for (const auto& f : m_framer.flush())
            writeFrame(f);
        const QJsonObject exit = m_exitEvent();
        if (!exit.isEmpty() || !m_follow)
            finish(exit); // else: the record becomes final in a moment (onExecutionFinished)
    }
}

void LogStreamSession::onExecutionFinished() {
    if (m_logDone && !m_finished)
        finish(m_exitEvent());
    else
        QTimer::singleShot(0, m_stream, &http::ResponseStream::pump);
}

void LogStreamSession::finish(const QJsonObject& exitEvent) {
    if (m_finished)
        return;
    m_finished = true;
    if (!exitEvent.isEmpty()) {
        if (m_beforeExit)
            for (const QJsonObject& event : m_beforeExit())
                write(event);
        write(exitEvent);
    }
    m_stream->end();
    deleteLater();
}

} // namespace runbox::api
