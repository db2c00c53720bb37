#include "agent/api/LightExecSession.h"

#include "agent/api/LightResult.h"
#include "agent/api/LightService.h"
#include "agent/execution/WorkspaceChanges.h"
#include "agent/light/LightWorkspaceHost.h"

#include <QJsonDocument>
#include <QSocketNotifier>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace runbox::api {

namespace {
constexpr qint64 kPauseAboveBytes = 1 << 20;
constexpr qint64 kResumeBelowBytes = 256 << 10;
constexpr int kPingIntervalMs = 15000;
/// After the status: how long a pipe still held open by a background process is waited for.
constexpr int kDrainBoundMs = 1000;
/// Bytes read per notifier wake-up (keeps one busy stream from starving the event loop).
constexpr qint64 kReadBudget = 256 << 10;
/// After the status: at most this much is read at once before the drain bound (a background
/// writer could otherwise keep the loop busy forever).
constexpr qint64 kFinalDrainBytes = 4 << 20;

bool makePipe(int fds[2]) {
    return ::pipe2(fds, O_CLOEXEC) == 0;
}

void setNonBlocking(int fd) {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

} // namespace

LightExecSession::LightExecSession(http::HttpExchange* exchange, LightService* light,
                                   Options options, QObject* parent)
    : QObject(parent), m_exchange(exchange), m_light(light), m_options(std::move(options)) {
    m_ping.setInterval(kPingIntervalMs);
    connect(&m_ping, &QTimer::timeout, this, [this] { write({{"type", "ping"}}); });
    m_drain.setSingleShot(true);
    m_drain.setInterval(kDrainBoundMs);
    connect(&m_drain, &QTimer::timeout, this, [this] {
        for (int s = 0; s < 2; ++s) {
            readStream(s, kFinalDrainBytes);
            closeStream(s);
        }
        maybeEnd();
    });
}

LightExecSession::~LightExecSession() {
    for (int s = 0; s < 2; ++s)
        closeStream(s);
    if (m_stdin >= 0)
        ::close(m_stdin);
    if (m_execution && !m_execution->isFinished())
        m_execution->cancel();
    if (m_activity)
        m_light->endActivity(m_options.workspaceId);
}

std::optional<ApiError> LightExecSession::start() {
    const execution::ExecRequest& req = m_options.request;
    int out[2] = {-1, -1}, err[2] = {-1, -1}, in[2] = {-1, -1};
    const bool withStdin = !req.stdinData.isEmpty();
    if (!makePipe(out) || !makePipe(err) || (withStdin && !makePipe(in))) {
        const int e = errno;
        for (int fd : {out[0], out[1], err[0], err[1], in[0], in[1]})
            if (fd >= 0)
                ::close(fd);
        return ApiError{503, QStringLiteral("resources_exhausted"),
                        QStringLiteral("cannot create pipes: %1")
                            .arg(QString::fromLocal8Bit(std::strerror(e)))};
    }
    light::LightExecRequest request;
    request.argv = req.sandboxCommand();
    request.env = req.env;
    request.cwd = req.cwd;
    request.timeoutMs = req.timeoutMs;
    request.stdinFd = withStdin ? in[0] : -1;
    request.stdoutFd = out[1];
    request.stderrFd = err[1];
    if (m_options.fs)
        execution::trackWorkspaceChanges(&m_tracking, m_options.fs);
    if (m_tracking.snapshotBefore)
        m_tracking.snapshotBefore();
    m_clock.start();
    ApiError error;
    m_execution = m_light->host()->exec(m_options.workspaceId, request, &error);
    // The supervisor holds its own copies now (SCM_RIGHTS): ours must go, or EOF never comes.
    ::close(out[1]);
    ::close(err[1]);
    if (withStdin)
        ::close(in[0]);
    m_out[0] = out[0];
    m_out[1] = err[0];
    m_stdin = withStdin ? in[1] : -1;
    if (!m_execution)
        return error;

    m_light->beginActivity(m_options.workspaceId);
    m_activity = true;
    if (m_exchange) {
        connect(m_exchange, &http::HttpExchange::clientGone, this,
                [this] { stop(QStringLiteral("the client disconnected")); });
        connect(m_exchange, &QObject::destroyed, this,
                [this] { stop(QStringLiteral("the client disconnected")); });
        connect(m_exchange, &http::HttpExchange::writable, this, [this] {
            if (m_paused && m_exchange && m_exchange->pendingBytes() < kResumeBelowBytes)
                setPaused(false);
        });
        m_exchange->beginChunked(200, "application/x-ndjson");
    }
    write({{"type", "started"},
           {"executionId", m_options.executionId},
           {"workspace", m_options.workspaceId},
           {"isolation", "light"},
           {"startedAt", QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)}});
    for (int s = 0; s < 2; ++s) {
        setNonBlocking(m_out[s]);
        m_outNotifier[s] = new QSocketNotifier(m_out[s], QSocketNotifier::Read, this);
        connect(m_outNotifier[s], &QSocketNotifier::activated, this,
                [this, s] { readStream(s, kReadBudget); });
    }
    if (m_stdin >= 0) {
        setNonBlocking(m_stdin);
        m_stdinNotifier = new QSocketNotifier(m_stdin, QSocketNotifier::Write, this);
        connect(m_stdinNotifier, &QSocketNotifier::activated, this, &LightExecSession::writeStdin);
        writeStdin();
    }
    m_ping.start();
    QPointer<LightExecSession> self(this);
    LightService* hop = m_light; // lives as long as the agent: a safe target to post to
    m_execution->onFinished([self, hop](const light::LightExitStatus& status) {
        // Light event thread (or here, when already finished): hop to the main thread.
        QMetaObject::invokeMethod(
            hop,
            [self, status] {
                if (self)
                    self->onFinished(status);
            },
            Qt::QueuedConnection);
    });
    return std::nullopt;
}

void LightExecSession::writeStdin() {
    const QByteArray& data = m_options.request.stdinData;
    while (m_stdin >= 0 && m_stdinWritten < data.size()) {
        const ssize_t n = ::write(m_stdin, data.constData() + m_stdinWritten,
                                  size_t(data.size() - m_stdinWritten));
        if (n > 0) {
            m_stdinWritten += n;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return; // the notifier calls again
        break;      // EPIPE: the command does not read its stdin
    }
    delete m_stdinNotifier;
    m_stdinNotifier = nullptr;
    if (m_stdin >= 0)
        ::close(m_stdin);
    m_stdin = -1;
}

void LightExecSession::readStream(int stream, qint64 budget) {
    char buffer[65536];
    while (m_out[stream] >= 0 && budget > 0) {
        const ssize_t n = ::read(m_out[stream], buffer, sizeof(buffer));
        if (n > 0) {
            budget -= n;
            feed(stream, QByteArray(buffer, qsizetype(n)));
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        closeStream(stream); // EOF or error
        maybeEnd();
        return;
    }
}

void LightExecSession::closeStream(int stream) {
    delete m_outNotifier[stream];
    m_outNotifier[stream] = nullptr;
    if (m_out[stream] >= 0)
        ::close(m_out[stream]);
    m_out[stream] = -1;
}

void LightExecSession::feed(int stream, const QByteArray& data) {
    if (m_stopStatus == QLatin1String("output_limited"))
        return; // past the limit: dropped
    QByteArray bytes = data;
    const qint64 limit = m_options.request.maxOutputBytes;
    const bool over = limit > 0 && m_outputBytes + bytes.size() > limit;
    if (over)
        bytes.truncate(qsizetype(limit - m_outputBytes));
    m_outputBytes += bytes.size();
    for (const execution::OutputFrame& f : m_framer.feed(execution::OutputStream(stream), bytes))
        write(f.toEvent());
    if (over && m_stopStatus.isEmpty()) {
        m_stopStatus = QStringLiteral("output_limited");
        m_stopReason = QStringLiteral("output exceeded maxOutputBytes (%1 bytes)").arg(limit);
        m_execution->cancel();
    }
}

void LightExecSession::setPaused(bool paused) {
    m_paused = paused;
    for (QSocketNotifier* n : m_outNotifier)
        if (n)
            n->setEnabled(!paused);
}

void LightExecSession::write(const QJsonObject& event) {
    if (event.value(QLatin1String("type")).toString() != QLatin1String("ping") && m_ping.isActive())
        m_ping.start();
    if (!m_exchange || m_exchange->isClientGone())
        return;
    m_exchange->writeChunk(QJsonDocument(event).toJson(QJsonDocument::Compact) + '\n');
    if (!m_status && m_exchange->pendingBytes() > kPauseAboveBytes)
        setPaused(true);
}

void LightExecSession::onFinished(const light::LightExitStatus& status) {
    m_status = status;
    // Everything the command wrote before it ended is in the pipes now: read it all, whatever
    // the client's pace (bounded), then wait a little for EOF.
    setPaused(false);
    for (int s = 0; s < 2; ++s)
        readStream(s, kFinalDrainBytes);
    if (!m_ended && (m_out[0] >= 0 || m_out[1] >= 0))
        m_drain.start();
    maybeEnd();
}

void LightExecSession::stop(const QString& reason) {
    if (m_ended || !m_execution)
        return;
    if (m_stopStatus.isEmpty()) {
        m_stopStatus = QStringLiteral("cancelled");
        m_stopReason = reason;
    }
    m_execution->cancel();
}

void LightExecSession::maybeEnd() {
    if (m_ended || !m_status)
        return;
    const bool clientGone = !m_exchange || m_exchange->isClientGone();
    if (!clientGone && (m_out[0] >= 0 || m_out[1] >= 0))
        return;
    end();
}

void LightExecSession::end() {
    m_ended = true;
    m_drain.stop();
    m_ping.stop();
    for (const execution::OutputFrame& f : m_framer.flush())
        write(f.toEvent());
    execution::ExecutionResult result =
        lightResultOf(*m_status, m_stopStatus, m_stopReason, m_options.request.timeoutMs);
    result.stdoutBytes = m_framer.bytesFed(execution::OutputStream::Stdout);
    result.stderrBytes = m_framer.bytesFed(execution::OutputStream::Stderr);
    if (m_tracking.changesAfter && result.status != QLatin1String("setup_failed") && m_exchange &&
        !m_exchange->isClientGone())
        result.changes = m_tracking.changesAfter();
    write(result.toEvent());
    if (m_exchange)
        m_exchange->endChunked();
    deleteLater();
}

} // namespace runbox::api
