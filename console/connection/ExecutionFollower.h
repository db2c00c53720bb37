#pragma once

#include "console/api/ExecutionInfo.h"
#include "console/connection/ReconnectBackoff.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QTimer>

class QNetworkReply;

namespace runbox::console {

class AgentConnection;

/// Follows one execution's NDJSON event stream (docs/contracts.md "Event stream") and reports its
/// output and state.
///
/// - Managed (docs/managed.md "Log streams"): reads the record (`GET /v1/executions/{id}`), then
///   follows `GET /v1/executions/{id}/log?offset=N&follow=true`. When the stream breaks before the
///   `exit` event it resumes from the next unseen byte after a backoff; bytes already seen are
///   never shown twice (events carry the logical `offset`).
/// - Sync: owns a running `POST /v1/workspaces/{ws}/exec` stream. The agent kills a sync
///   execution when its client disconnects, so cancel() closes the stream, and a broken stream
///   ends the execution as `lost`.
class ExecutionFollower final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecutionFollower)
public:
    enum class Mode { Managed, Sync };
    enum Stream { Stdout = 1, Stderr = 2 };

    /// Follows the managed execution @p executionId (call start()).
    ExecutionFollower(AgentConnection* connection, const QString& executionId,
                      QObject* parent = nullptr);
    /// Prepares a sync execution of @p body in @p workspaceId (call start()).
    ExecutionFollower(AgentConnection* connection, const QString& workspaceId,
                      const QJsonObject& body, QObject* parent = nullptr);
    ~ExecutionFollower() override;

    void start();
    /// Managed: `POST …/cancel` (the stream then ends with the `exit` event). Sync: closes the
    /// stream, which makes the agent kill the execution; the state becomes `cancelled`.
    void cancel();

    Mode mode() const { return m_mode; }
    AgentConnection* connection() const { return m_connection; }
    const ExecutionInfo& info() const { return m_info; }
    bool isFinished() const { return m_finished; }
    /// The next logical log offset not yet seen (managed), or the bytes seen (sync).
    qint64 nextOffset() const { return m_nextOffset; }

Q_SIGNALS:
    /// Output bytes of one stream, in order.
    void output(int stream, const QByteArray& bytes);
    /// The record changed (state, times, exit code…).
    void infoChanged(const runbox::console::ExecutionInfo& info);
    /// One `egress` event (agent/egress/README.md) as received.
    void egressEvent(const QJsonObject& event);
    /// Retention dropped @p bytes between head and tail of the log (docs/STORE.md "Logs").
    void gap(qint64 bytes);
    /// Something the operator should know (translated): a reconnect, a refused cancel…
    /// An empty text means the last notice no longer applies (the stream resumed).
    void notice(const QString& text);
    /// The execution reached a final state (after all of its output was delivered).
    void finished(const runbox::console::ExecutionInfo& info);

private:
    void loadRecord();
    void openLogStream();
    void startSync();
    void onEvent(const QJsonObject& event);
    void onOutputEvent(int stream, const QJsonObject& event);
    void onStreamDone(int status, const QString& error, const QString& errorCode);
    void scheduleResume(const QString& why);
    void finish();

    QPointer<AgentConnection> m_connection;
    Mode m_mode;
    QString m_workspaceId;
    QJsonObject m_syncBody;
    ExecutionInfo m_info;
    QPointer<QNetworkReply> m_reply;
    qint64 m_nextOffset = 0;
    bool m_finished = false;
    bool m_sawExit = false;
    bool m_cancelRequested = false;
    bool m_resuming = false;
    ReconnectBackoff m_backoff;
    QTimer m_resumeTimer;
    QTimer m_watchdog;
};

} // namespace runbox::console
