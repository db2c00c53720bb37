#pragma once

#include "agent/execution/ExecRequest.h"
#include "agent/execution/ExecutionBackend.h"
#include "agent/execution/OutputFramer.h"
#include "agent/http/HttpExchange.h"

#include <QObject>
#include <QPointer>
#include <QTimer>

#include <memory>
#include <optional>

namespace runbox::workspace {
class WorkspaceFs;
}

namespace runbox::api {

class LightRun;
class LightService;

/// One sync execution in a light workspace (docs/light-workspaces.md), streamed with exactly the
/// events of a strong one (docs/contracts.md "Event stream", SyncExecSession): `started`,
/// `stdout`/`stderr` frames cut by OutputFramer (logical offsets, UTF-8 carry-over, base64 for
/// other bytes), `ping` after 15 s of silence, `exit` last (ExecutionResult::toEvent). The command
/// runs as a LightRun (the same backend as a managed execution), whose `finished` comes only once
/// every byte the command wrote before it ended has been emitted: `exit` never overtakes trailing
/// output.
///
/// The workspace env is applied under the request's env (LightExecMessage::buildEnv). The client
/// going away cancels the command's whole tree. Output is read only as fast as the client takes
/// it (pause above 1 MiB queued); past `maxOutputBytes` the command is stopped as
/// output_limited. No workspace lease and no global concurrency slot: a light workspace runs
/// concurrent execs, bounded by its rlimits. Deletes itself at the end.
class LightExecSession final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LightExecSession)
public:
    struct Options {
        QString executionId;
        QString workspaceId;
        execution::ExecRequest request;
        std::shared_ptr<const workspace::WorkspaceFs> fs; ///< for createdFiles & co.
    };

    LightExecSession(http::HttpExchange* exchange, LightService* light, Options options,
                     QObject* parent = nullptr);
    ~LightExecSession() override;

    /// Starts the command. An error (404/409 from a racing delete, 400, 503) means nothing ran
    /// and nothing was written: the caller replies it and deletes the session.
    std::optional<ApiError> start();
    /// Kills it (agent shutdown); it ends as cancelled with @p reason.
    void stop(const QString& reason);

private:
    void feed(execution::OutputStream stream, const QByteArray& bytes);
    void end(execution::ExecutionResult result);
    void write(const QJsonObject& event);
    void clientLeft();

    QPointer<http::HttpExchange> m_exchange;
    Options m_options;
    LightRun* m_run = nullptr; ///< child: goes with the session
    execution::OutputFramer m_framer;
    qint64 m_outputBytes = 0;
    bool m_limited = false; ///< past maxOutputBytes: later bytes are dropped
    QTimer m_ping;
};

} // namespace runbox::api
