#pragma once

#include "agent/execution/IsolationTier.h"
#include "agent/http/HttpExchange.h"

#include <QObject>
#include <QPointer>

namespace runbox::execution {
class ExecutionManager;
class ExecutionStream;
} // namespace runbox::execution

namespace runbox::http {
class ResponseStream;
} // namespace runbox::http

namespace runbox::api {

/// One sync execution of any tier, from the request to the last event (docs/contracts.md "Event
/// stream"): waits for admission (the tier's lease key; `{"type":"queued"}` tells the client
/// while it waits), has the workspace's IsolationTier make the backend, and streams what
/// ExecutionStream makes of it as NDJSON with backpressure through http::ResponseStream (reading
/// pauses while more than 1 MiB waits for the client, resumes below 256 KiB). Features' events of
/// the execution (ExecutionManager::executionEvent: egress decisions) go into the same stream, up
/// to `exit`, which goes out with the terminating chunk. A refusal of the tier before anything ran
/// (TierBackend::refused) is answered as the HTTP error itself. The client going away at any
/// point drops it from the queue, abandons the backend's preparation or stops the command as
/// cancelled. Deletes itself at the end.
class SyncExecSession final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SyncExecSession)
public:
    SyncExecSession(http::HttpExchange* exchange, execution::ExecutionManager* manager,
                    execution::IsolationTier* tier, execution::TierLaunch launch,
                    QObject* parent = nullptr);
    ~SyncExecSession() override;

    void start();
    /// Kills it (agent shutdown).
    void stop(const QString& reason);

private:
    void onAdmitted();
    void onBackend(execution::TierBackend made);
    void onClientGone();
    void end(const execution::ExecutionResult& result);
    void write(const QJsonObject& event);
    /// Begins the 200 NDJSON response once (when the first event goes out).
    void begin();
    void finish();

    QPointer<http::HttpExchange> m_exchange;
    execution::ExecutionManager* m_manager;
    execution::IsolationTier* m_tier;
    execution::TierLaunch m_launch;
    QString m_jobId;
    enum class Phase { Queued, Preparing, Running, Done } m_phase = Phase::Queued;
    bool m_begun = false;
    execution::ExecutionBackend* m_backend = nullptr; ///< child
    execution::ExecutionStream* m_stream = nullptr;   ///< child
    http::ResponseStream* m_response = nullptr;       ///< child: NDJSON writing, backpressure
};

} // namespace runbox::api
