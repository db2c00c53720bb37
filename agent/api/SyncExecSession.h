#pragma once

#include "agent/execution/ExecRequest.h"
#include "agent/execution/LaunchPlanner.h"
#include "agent/http/HttpExchange.h"

#include <QObject>
#include <QPointer>

#include <memory>

namespace runbox::execution {
class ExecutionManager;
class ExecutionRunner;
} // namespace runbox::execution
namespace runbox::workspace {
class WorkspaceFs;
}

namespace runbox::api {

/// One sync execution, from the request to the last event: waits for the workspace lease
/// (`{"type":"queued"}` tells the client), plans the launch (the same LaunchPlanner as managed
/// executions), runs it and streams every event as NDJSON with backpressure (reading pauses while
/// more than 1 MiB waits for the client). The client going away at any point drops it from the
/// queue, abandons the plan or kills the sandbox. Deletes itself at the end.
class SyncExecSession final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SyncExecSession)
public:
    SyncExecSession(http::HttpExchange* exchange, execution::ExecutionManager* manager,
                    execution::LaunchContext context,
                    std::shared_ptr<const workspace::WorkspaceFs> fs, qint64 setupTimeoutMs,
                    QObject* parent = nullptr);
    ~SyncExecSession() override;

    void start();
    /// Kills it (agent shutdown).
    void stop(const QString& reason);

private:
    void onAdmitted();
    void launch(std::shared_ptr<execution::LaunchPlan> plan);
    void onClientGone();
    void end();
    void write(const QJsonObject& event);

    QPointer<http::HttpExchange> m_exchange;
    execution::ExecutionManager* m_manager;
    execution::LaunchContext m_context;
    std::shared_ptr<const workspace::WorkspaceFs> m_fs;
    qint64 m_setupTimeoutMs;
    QString m_jobId;
    enum class Phase { Queued, Planning, Running, Done } m_phase = Phase::Queued;
    QJsonObject m_exitEvent; ///< held back to go out with the terminating chunk
    std::shared_ptr<execution::LaunchPlan> m_plan;
    execution::ExecutionRunner* m_runner = nullptr;
};

} // namespace runbox::api
