#pragma once

#include <QByteArray>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>

#include <functional>

class QNetworkReply;

namespace runbox {
class ApiClient;
}

namespace runbox::testsupport {

/// Everything a sync exec (`POST /v1/workspaces/{id}/exec`) sent back, collected for assertions.
struct ExecOutcome {
    int httpStatus = 0;        ///< 0 when no HTTP answer came
    QByteArray errorBody;      ///< the body of a non-200 answer (`{"error":{…}}`)
    QList<QJsonObject> events; ///< every NDJSON event, in order (ping included)
    QList<qint64> arrivalMs;   ///< per event: ms since the request was sent
    QJsonObject exitEvent;     ///< the `exit` event; empty when none arrived
    QByteArray stdoutBytes;    ///< stdout frames decoded (`data` or `dataBase64`) and joined
    QByteArray stderrBytes;    ///< stderr likewise
    bool waitTimedOut = false; ///< the test gave up waiting (the stream was then aborted)
    QString transportError;    ///< QNetworkReply error text, if any

    bool hasExit() const { return !exitEvent.isEmpty(); }
    QString status() const; ///< exit.status ("completed", "timed_out", …)
    int exitCode() const;   ///< exit.exitCode, -1 when null/absent
    QString stdoutText() const { return QString::fromUtf8(stdoutBytes); }
    QString stderrText() const { return QString::fromUtf8(stderrBytes); }
    QJsonObject errorJson() const; ///< `error` object of errorBody
    QString errorCode() const;     ///< `error.code` of errorBody
    /// One line for failure messages: status, exit code, first bytes of stdout/stderr/error.
    QString describe() const;

    /// Raw bytes of one stdout/stderr event (`data` as UTF-8, or `dataBase64` decoded).
    static QByteArray eventBytes(const QJsonObject& event);
};

/// One streaming sync exec, observable while it runs: `eventReceived` fires per NDJSON event as it
/// arrives; `abort()` drops the connection (a client disconnect). Collected data is in outcome().
class ExecStream final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecStream)
public:
    /// Sends the request at once. @p body is the exec request object (docs/contracts.md "Exec
    /// request").
    ExecStream(ApiClient* client, const QString& workspaceId, const QJsonObject& body,
               QObject* parent = nullptr);
    ~ExecStream() override;

    const ExecOutcome& outcome() const { return m_outcome; }
    bool isFinished() const { return m_finished; }
    /// Runs the event loop until the response ended or @p timeoutMs passed; true if it ended.
    bool waitForFinished(int timeoutMs);
    /// Runs the event loop until some event received so far satisfies @p pred (or timeout).
    bool waitForEvent(const std::function<bool(const QJsonObject&)>& pred, int timeoutMs);
    /// Closes the connection now, as a client that goes away would.
    void abort();
    /// When false, stdout/stderr events are not kept in outcome().events (bytes still are).
    void setKeepOutputEvents(bool keep) { m_keepOutputEvents = keep; }

Q_SIGNALS:
    void eventReceived(const QJsonObject& event, qint64 arrivalMs);
    void finished();

private:
    void onEvent(const QJsonObject& event);

    QPointer<QNetworkReply> m_reply;
    QElapsedTimer m_clock;
    ExecOutcome m_outcome;
    bool m_finished = false;
    bool m_keepOutputEvents = true;
};

/// Runs the exec request @p body in @p workspaceId to its end, waiting at most @p timeoutMs:
/// the `exit` event with the last 400 characters of stdout and stderr added as "stdout" and
/// "stderr"; an empty object on time-out. A refusal (not 200) is logged.
QJsonObject runToExitEvent(ApiClient* client, const QString& workspaceId, const QJsonObject& body,
                           int timeoutMs);

} // namespace runbox::testsupport
