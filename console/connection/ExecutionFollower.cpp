#include "console/connection/ExecutionFollower.h"

#include "console/connection/AgentConnection.h"

#include <QJsonDocument>
#include <QNetworkReply>
#include <QUrl>

namespace runbox::console {

namespace {
constexpr int kWatchdogMs = 45000; // the agent pings after 15 s of silence

QByteArray encoded(const QString& segment) {
    return QUrl::toPercentEncoding(segment);
}
} // namespace

ExecutionFollower::ExecutionFollower(AgentConnection* connection, const QString& executionId,
                                     QObject* parent)
    : QObject(parent), m_connection(connection), m_mode(Mode::Managed) {
    m_info.id = executionId;
    m_resumeTimer.setSingleShot(true);
    connect(&m_resumeTimer, &QTimer::timeout, this, &ExecutionFollower::openLogStream);
    m_watchdog.setSingleShot(true);
    m_watchdog.setInterval(kWatchdogMs);
    connect(&m_watchdog, &QTimer::timeout, this, [this] {
        if (m_reply)
            m_reply->abort(); // silent for too long: resume on a fresh stream
    });
}

ExecutionFollower::ExecutionFollower(AgentConnection* connection, const QString& workspaceId,
                                     const QJsonObject& body, QObject* parent)
    : QObject(parent), m_connection(connection), m_mode(Mode::Sync), m_workspaceId(workspaceId),
      m_syncBody(body) {
    m_info.workspace = workspaceId;
    m_info.kind = body.value(QLatin1String("kind")).toString();
    m_info.state = QStringLiteral("queued");
    m_info.createdAt = QDateTime::currentDateTimeUtc();
}

ExecutionFollower::~ExecutionFollower() {
    m_finished = true; // the abort below reports nothing to anyone
    if (m_reply)
        m_reply->abort();
}

void ExecutionFollower::start() {
    if (m_mode == Mode::Sync)
        startSync();
    else
        loadRecord();
}

void ExecutionFollower::loadRecord() {
    if (!m_connection)
        return;
    m_connection->get("/v1/executions/" + encoded(m_info.id), this, [this](const ApiResponse& r) {
        if (r.ok()) {
            const ExecutionInfo fresh = ExecutionInfo::fromJson(r.json());
            // Keep an exit already seen on the stream if the record lags behind it.
            if (!(m_finished && !fresh.isTerminal()))
                m_info = fresh;
            Q_EMIT infoChanged(m_info);
        } else if (r.status != 0) {
            Q_EMIT notice(tr("Could not read the execution record: %1").arg(r.errorMessage()));
        }
        if (!m_finished && !m_reply && !m_resumeTimer.isActive())
            openLogStream();
    });
}

void ExecutionFollower::openLogStream() {
    if (!m_connection || m_finished)
        return;
    const QByteArray path = "/v1/executions/" + encoded(m_info.id) +
                            "/log?offset=" + QByteArray::number(m_nextOffset) + "&follow=true";
    m_sawExit = false;
    m_watchdog.start();
    m_reply = m_connection->stream(
        "GET", path, {}, this, [this](const QJsonObject& ev) { onEvent(ev); },
        [this](const ApiResponse& r) { onStreamDone(r.status, r.errorMessage(), r.errorCode()); });
}

void ExecutionFollower::startSync() {
    if (!m_connection)
        return;
    m_watchdog.stop();
    m_reply = m_connection->stream(
        "POST", "/v1/workspaces/" + encoded(m_workspaceId) + "/exec",
        QJsonDocument(m_syncBody).toJson(QJsonDocument::Compact), this,
        [this](const QJsonObject& ev) { onEvent(ev); },
        [this](const ApiResponse& r) { onStreamDone(r.status, r.errorMessage(), r.errorCode()); });
}

void ExecutionFollower::onEvent(const QJsonObject& ev) {
    if (m_mode == Mode::Managed)
        m_watchdog.start();
    if (m_resuming) {
        m_resuming = false;
        m_backoff.reset();
        Q_EMIT notice(QString()); // the stream is back: the interruption notice is over
    }
    const QString type = ev.value(QLatin1String("type")).toString();
    if (type == QLatin1String("stdout")) {
        onOutputEvent(Stdout, ev);
    } else if (type == QLatin1String("stderr")) {
        onOutputEvent(Stderr, ev);
    } else if (type == QLatin1String("started")) {
        if (m_info.id.isEmpty())
            m_info.id = ev.value(QLatin1String("executionId")).toString();
        m_info.workspace = ev.value(QLatin1String("workspace")).toString(m_info.workspace);
        const QDateTime at = QDateTime::fromString(ev.value(QLatin1String("startedAt")).toString(),
                                                   Qt::ISODateWithMs);
        m_info.startedAt = at.isValid() ? at.toUTC() : QDateTime::currentDateTimeUtc();
        if (!m_info.isTerminal())
            m_info.state = QStringLiteral("running");
        Q_EMIT infoChanged(m_info);
    } else if (type == QLatin1String("exit")) {
        m_sawExit = true;
        m_info.applyExitEvent(ev);
        finish();
    } else if (type == QLatin1String("egress")) {
        Q_EMIT egressEvent(ev);
    } else if (type == QLatin1String("gap")) {
        const qint64 bytes = qint64(ev.value(QLatin1String("bytes")).toDouble());
        const qint64 offset = qint64(ev.value(QLatin1String("offset")).toDouble(m_nextOffset));
        m_nextOffset = std::max(m_nextOffset, offset + bytes);
        Q_EMIT gap(bytes);
    } else if (type == QLatin1String("error")) {
        Q_EMIT notice(tr("The agent reported an error in the stream: %1")
                          .arg(ev.value(QLatin1String("message")).toString()));
    } else if (ev.contains(QLatin1String("state"))) {
        m_info.state = ev.value(QLatin1String("state")).toString();
        Q_EMIT infoChanged(m_info);
    }
}

void ExecutionFollower::onOutputEvent(int stream, const QJsonObject& ev) {
    QByteArray bytes =
        ev.contains(QLatin1String("dataBase64"))
            ? QByteArray::fromBase64(ev.value(QLatin1String("dataBase64")).toString().toLatin1())
            : ev.value(QLatin1String("data")).toString().toUtf8();
    if (m_mode == Mode::Managed && ev.value(QLatin1String("offset")).isDouble()) {
        // Logical offsets count both streams: skip what an earlier stream already delivered.
        const qint64 offset = qint64(ev.value(QLatin1String("offset")).toDouble());
        const qint64 end = offset + bytes.size();
        if (end <= m_nextOffset)
            return;
        if (offset < m_nextOffset)
            bytes = bytes.mid(m_nextOffset - offset);
        m_nextOffset = end;
    } else {
        m_nextOffset += bytes.size();
    }
    if (m_info.state == QLatin1String("queued")) {
        m_info.state = QStringLiteral("running");
        Q_EMIT infoChanged(m_info);
    }
    if (!bytes.isEmpty())
        Q_EMIT output(stream, bytes);
}

void ExecutionFollower::onStreamDone(int status, const QString& error, const QString& errorCode) {
    m_reply = nullptr;
    m_watchdog.stop();
    if (m_finished)
        return;
    if (m_mode == Mode::Sync) {
        if (m_cancelRequested) {
            m_info.state = QStringLiteral("cancelled");
            m_info.statusReason = tr("Cancelled from the console (closing the stream of a sync "
                                     "execution makes the agent kill it).");
        } else if (status != 200 && status != 0) {
            m_info.state =
                status == 503 ? QStringLiteral("setup_failed") : QStringLiteral("failed");
            m_info.statusReason =
                tr("The agent refused the execution (HTTP %1): %2").arg(status).arg(error);
        } else {
            m_info.state = QStringLiteral("lost");
            m_info.statusReason =
                tr("The connection to the agent broke before the execution ended (%1); a sync "
                   "execution is killed when its client disconnects.")
                    .arg(error.isEmpty() ? tr("stream closed") : error);
        }
        finish();
        return;
    }
    if (m_sawExit) {
        finish();
        return;
    }
    if (status == 401 || status == 403 || status == 400 ||
        (status == 404 && (errorCode == QLatin1String("not_found") || errorCode.isEmpty()))) {
        Q_EMIT notice(tr("The agent cannot stream this log (HTTP %1): %2").arg(status).arg(error));
        return;
    }
    if (status == 404) {
        Q_EMIT notice(tr("The agent does not know this execution: %1").arg(error));
        return;
    }
    scheduleResume(error.isEmpty() ? tr("the stream ended early") : error);
}

void ExecutionFollower::scheduleResume(const QString& why) {
    const int delay = m_backoff.nextDelayMs();
    Q_EMIT notice(tr("Log stream interrupted (%1); resuming at byte %2 in %n s.", nullptr,
                     (delay + 999) / 1000)
                      .arg(why)
                      .arg(m_nextOffset));
    m_resuming = true;
    m_resumeTimer.start(delay);
}

void ExecutionFollower::cancel() {
    if (m_finished || !m_connection)
        return;
    m_cancelRequested = true;
    if (m_mode == Mode::Sync) {
        if (m_reply)
            m_reply->abort();
        return;
    }
    m_connection->request(
        "POST", "/v1/executions/" + encoded(m_info.id) + "/cancel", "{}", this,
        [this](const ApiResponse& r) {
            if (!r.ok())
                Q_EMIT notice(
                    tr("Cancel refused (HTTP %1): %2").arg(r.status).arg(r.errorMessage()));
            else
                Q_EMIT notice(tr("Cancel requested; waiting for the "
                                 "execution to end."));
        });
}

void ExecutionFollower::finish() {
    if (m_finished)
        return;
    m_finished = true;
    m_resumeTimer.stop();
    m_watchdog.stop();
    if (!m_info.finishedAt.isValid())
        m_info.finishedAt = QDateTime::currentDateTimeUtc();
    Q_EMIT infoChanged(m_info);
    Q_EMIT finished(m_info);
    if (m_mode == Mode::Managed)
        loadRecord(); // the final record: provenance, changed files, permission epoch
}

} // namespace runbox::console
