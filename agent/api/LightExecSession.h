#pragma once

#include "agent/execution/ExecRequest.h"
#include "agent/execution/ExecutionRunner.h"
#include "agent/execution/OutputFramer.h"
#include "agent/http/HttpExchange.h"
#include "agent/light/LightExecution.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <memory>
#include <optional>

class QSocketNotifier;

namespace runbox::workspace {
class WorkspaceFs;
}

namespace runbox::api {

class LightService;

/// One sync execution in a light workspace (issue 7), streamed with exactly the events of a
/// strong one (DESIGN.md §3, SyncExecSession): `started`, `stdout`/`stderr` frames cut by
/// OutputFramer (logical offsets, UTF-8 carry-over, base64 for other bytes), `ping` after 15 s of
/// silence, `exit` last (ExecutionResult::toEvent). The command runs through
/// LightWorkspaceHost::exec with three pipes; its status and the pipes' EOF arrive independently,
/// so `exit` is written only once the status is in and both pipes reached EOF, or — when a
/// background process of the workspace still holds a pipe — once what was buffered has been read
/// and a 1 s drain bound has passed: no output the command wrote before it ended is lost.
///
/// The workspace env is applied under the request's env (LightExecMessage::buildEnv). The client
/// going away cancels the command's whole tree. Output is read only as fast as the client takes
/// it (pause above 1 MiB queued). No workspace lease and no global concurrency slot: a light
/// workspace runs concurrent execs, bounded by its rlimits. Deletes itself at the end.
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
    void onFinished(const light::LightExitStatus& status);
    void readStream(int stream, qint64 budget);
    void closeStream(int stream);
    void writeStdin();
    void feed(int stream, const QByteArray& bytes);
    void setPaused(bool paused);
    void maybeEnd();
    void end();
    void write(const QJsonObject& event);

    QPointer<http::HttpExchange> m_exchange;
    LightService* m_light;
    Options m_options;
    std::shared_ptr<light::LightExecution> m_execution;
    int m_out[2] = {-1, -1}; ///< read ends of stdout, stderr (non-blocking)
    int m_stdin = -1;        ///< write end of stdin (non-blocking), −1 once closed
    qsizetype m_stdinWritten = 0;
    QSocketNotifier* m_outNotifier[2] = {nullptr, nullptr};
    QSocketNotifier* m_stdinNotifier = nullptr;
    execution::OutputFramer m_framer;
    execution::ExecutionRunner::Options m_tracking; ///< snapshot before/after (file changes)
    qint64 m_outputBytes = 0;
    QString m_stopStatus, m_stopReason; ///< set when the agent ended it (limit, client, shutdown)
    std::optional<light::LightExitStatus> m_status;
    QTimer m_ping, m_drain;
    QElapsedTimer m_clock;
    bool m_paused = false;
    bool m_activity = false; ///< beginActivity() was called
    bool m_ended = false;
};

} // namespace runbox::api
