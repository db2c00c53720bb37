#pragma once

#include "agent/execution/ExecutionBackend.h"
#include "agent/execution/OutputFramer.h"

#include <QJsonObject>
#include <QObject>
#include <QTimer>

#include <optional>

namespace runbox::execution {

/// Turns any backend's run into the events of docs/contracts.md "Event stream", the same for
/// every isolation tier: `started` (`{"type","executionId","workspace","startedAt"}` plus the
/// tier's fields; without startedAt when the backend could not start), `stdout`/`stderr` frames
/// cut by OutputFramer (≤ 64 KiB, logical offsets, UTF-8 carry-over, base64 for other bytes),
/// `ping` after 15 s without another event, and — after every byte — finished() with the
/// result of the `exit` event (ExecutionResult::toEvent), its stdoutBytes/stderrBytes being
/// what was framed. Past `maxOutputBytes` (stdout + stderr; 0 = unlimited) the bytes are cut
/// there, later ones dropped, and the backend is stopped as output_limited. Not owning the
/// backend.
class ExecutionStream final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecutionStream)
public:
    struct Options {
        QString executionId;
        QString workspaceId;
        qint64 maxOutputBytes = 0;
        QJsonObject startedFields; ///< IsolationTier::startedFields()
    };

    ExecutionStream(ExecutionBackend* backend, Options options, QObject* parent = nullptr);

    /// Starts the backend and emits `started`.
    void start();
    /// Backpressure: forwards to the backend (stop reading output while the consumer is behind).
    void setPaused(bool paused) { m_backend->setPaused(paused); }
    /// The events a set-up failure before any backend existed produces (`started` without
    /// startedAt, then the setup_failed result), for callers that have no backend to stream.
    static QJsonObject setupFailedStarted(const Options& options);

Q_SIGNALS:
    /// Every event but `exit`, in order.
    void event(const QJsonObject& event);
    /// Last: the `exit` event's result.
    void finished(const runbox::execution::ExecutionResult& result);

private:
    void onOutput(OutputStream stream, const QByteArray& bytes);
    void onFinished(const ExecutionResult& result);
    void send(const QJsonObject& event);

    ExecutionBackend* m_backend;
    Options m_options;
    OutputFramer m_framer;
    qint64 m_outputBytes = 0;
    bool m_limited = false;  ///< past maxOutputBytes: later bytes are dropped
    bool m_starting = false; ///< within start(): a result is held until `started` is out
    std::optional<ExecutionResult> m_early;
    QTimer m_ping;
};

} // namespace runbox::execution
