#pragma once

#include "console/api/RunRequest.h"

#include <QObject>
#include <QPointer>

namespace runbox::console {

class AgentConnection;
class ExecutionFollower;

/// Starts one run from the run dialog: creates a strong workspace when none was chosen, then
/// starts a managed execution (`POST /v1/executions`, docs/managed.md). When the agent has no such
/// route yet it falls back to a sync exec stream (`POST /v1/workspaces/{id}/exec`), so output still
/// arrives live. Either way launched() hands over an ExecutionFollower that is already started.
class ExecutionLauncher final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecutionLauncher)
public:
    ExecutionLauncher(AgentConnection* connection, const RunRequest& request,
                      QObject* parent = nullptr);

    /// Begins; exactly one of launched() or failed() follows, then the launcher deletes itself.
    void start();

Q_SIGNALS:
    /// A translated step ("Creating a workspace…") for a progress display.
    void progress(const QString& step);
    /// The execution runs; @p follower is unparented: the receiver takes ownership.
    void launched(runbox::console::ExecutionFollower* follower, bool managed);
    void failed(const QString& message);

private:
    void createWorkspace();
    void startManaged(const QString& workspaceId);
    void startSync(const QString& workspaceId);
    void fail(const QString& message);

    QPointer<AgentConnection> m_connection;
    RunRequest m_request;
};

} // namespace runbox::console
