#pragma once

#include "agent/http/HttpExchange.h"
#include "shared/ApiError.h"

#include <QByteArray>
#include <QJsonObject>
#include <QObject>
#include <QPointer>

#include <functional>
#include <optional>

namespace runbox::http {

/// Backpressure bounds of a streamed response, in bytes queued in the client's socket and not
/// yet sent (HttpExchange::pendingBytes()).
struct StreamWatermarks {
    qint64 pauseAboveBytes = 1024 * 1024; ///< at or above: the source pauses
    qint64 resumeBelowBytes = 256 * 1024; ///< below (after a pause): the source resumes
};

/// The mechanics of one streamed response to one client (NDJSON event streams, downloads):
/// the backpressure of CODING_GUIDELINES.md "Qt and the event loop" (the source stops while
/// StreamWatermarks::pauseAboveBytes or more wait for the client and resumes below
/// resumeBelowBytes, so memory stays flat whatever the client's speed), a re-entrancy-safe pump,
/// NDJSON writing (one compact JSON event per line, one HTTP chunk per event) and the `offset`
/// query parameter of log streams (docs/managed.md "Log streams").
///
/// Two kinds of source use it:
/// - a pull source (a log read in rounds): setPump() a round that writes while hasRoom(); the
///   round runs again by itself once the client drained below resumeBelowBytes;
/// - a push source (a process, an upstream socket): onPauseChanged() stops and restarts it;
///   call checkPressure() after writing through exchange() directly (writeEvent() and
///   writeChunk() do it themselves).
///
/// Re-entrancy: a write may flush the socket, whose bytesWritten comes back synchronously
/// (HttpExchange::writable); a pump() from inside a round only asks for one more round after it,
/// so the events of one round are never overtaken by a nested round. Owned by its parent (the
/// session); the exchange is held in a QPointer and may go away first.
class ResponseStream final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ResponseStream)
public:
    ResponseStream(HttpExchange* exchange, StreamWatermarks marks, QObject* parent);

    /// The response (null once the exchange is gone).
    HttpExchange* exchange() const { return m_exchange; }

    // --- writing ---
    /// Starts the 200 chunked response of @p contentType (default NDJSON).
    void begin(const QByteArray& contentType = QByteArrayLiteral("application/x-ndjson"));
    /// Writes @p event as one compact JSON line ("…}\n"), one chunk.
    void writeEvent(const QJsonObject& event);
    /// Writes @p data as one chunk (empty: nothing).
    void writeChunk(const QByteArray& data);
    /// Ends the chunked response (@p lastData: a last chunk in the same write) and the pump:
    /// no round runs after it.
    void end(const QByteArray& lastData = {});
    bool isEnded() const { return m_ended; }

    // --- backpressure ---
    /// @p changed(true) when the source must stop (pauseAboveBytes or more wait), (false) when
    /// it may go on (below resumeBelowBytes).
    void onPauseChanged(std::function<void(bool paused)> changed) {
        m_pauseChanged = std::move(changed);
    }
    bool isPaused() const { return m_paused; }
    /// Pauses the source when pauseAboveBytes or more wait; returns !isPaused().
    bool checkPressure();
    /// For pull loops: true while the source may produce (same as checkPressure()).
    bool hasRoom() { return checkPressure(); }

    // --- pump ---
    /// @p round: what pump() runs; also run when a pause ends.
    void setPump(std::function<void()> round) { m_round = std::move(round); }
    /// Runs the round now, or, when called from inside a round, once more after it.
    void pump();

    // --- requests ---
    /// The `offset` query parameter of a log stream: absent → 0; else a non-negative decimal
    /// integer. Error: 400 invalid_offset "offset must be a non-negative integer".
    static std::optional<ApiError> parseOffset(const HttpRequest& request, qint64* offset);

private:
    void onWritable();

    QPointer<HttpExchange> m_exchange;
    StreamWatermarks m_marks;
    std::function<void(bool)> m_pauseChanged;
    std::function<void()> m_round;
    bool m_paused = false;
    bool m_pumping = false;
    bool m_pumpAgain = false;
    bool m_ended = false;
};

} // namespace runbox::http
