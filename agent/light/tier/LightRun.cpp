#include "agent/light/tier/LightRun.h"

#include "agent/execution/WorkspaceChanges.h"
#include "agent/light/LightExecMessage.h"
#include "agent/light/LightWorkspaceHost.h"
#include "agent/light/tier/LightResult.h"
#include "agent/light/tier/LightService.h"

#include <QJsonArray>
#include <QPointer>
#include <QSocketNotifier>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace runbox::light {

namespace {
/// After the status: how long a pipe still held open by a background process is waited for.
constexpr int kDrainBoundMs = 1000;
/// Bytes read per notifier wake-up (keeps one busy stream from starving the event loop).
constexpr qint64 kReadBudget = 256 << 10;
/// After the status: at most this much is read at once before the drain bound (a background
/// writer could otherwise keep the loop busy forever).
constexpr qint64 kFinalDrainBytes = 4 << 20;

void setNonBlocking(int fd) {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}
} // namespace

LightRun::LightRun(LightService* light, const execution::TierLaunch& launch, QObject* parent)
    : execution::ExecutionBackend(parent), m_light(light), m_executionId(launch.executionId),
      m_workspaceId(launch.workspaceId), m_request(launch.request) {
    if (launch.fs)
        execution::trackWorkspaceChanges(&m_tracking, launch.fs);
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

LightRun::~LightRun() {
    for (int s = 0; s < 2; ++s)
        closeStream(s);
    if (m_stdin >= 0)
        ::close(m_stdin);
    if (m_execution && !m_execution->isFinished())
        m_execution->cancel();
    if (m_activity && m_light)
        m_light->endActivity(m_workspaceId);
}

void LightRun::start() {
    if (m_execution || m_ended)
        return; // launched by LightTier already
    if (auto error = launch()) {
        execution::ExecutionResult r;
        r.status = QStringLiteral("setup_failed");
        r.reason = error->message;
        finishWith(r);
    }
}

std::optional<ApiError> LightRun::launch() {
    if (!m_light || !m_light->available())
        return ApiError{503, QStringLiteral("light_unavailable"),
                        m_light ? m_light->availability().reason
                                : QStringLiteral("the agent is shutting down")};
    int out[2] = {-1, -1}, err[2] = {-1, -1}, in[2] = {-1, -1};
    const bool withStdin = !m_request.stdinData.isEmpty();
    if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0 ||
        (withStdin && ::pipe2(in, O_CLOEXEC) != 0)) {
        const int e = errno;
        for (int fd : {out[0], out[1], err[0], err[1], in[0], in[1]})
            if (fd >= 0)
                ::close(fd);
        return ApiError{503, QStringLiteral("resources_exhausted"),
                        QStringLiteral("cannot create pipes: %1")
                            .arg(QString::fromLocal8Bit(std::strerror(e)))};
    }
    LightExecRequest request;
    request.argv = m_request.sandboxCommand();
    request.env = m_request.env;
    request.cwd = m_request.cwd;
    request.timeoutMs = m_request.timeoutMs;
    request.stdinFd = withStdin ? in[0] : -1;
    request.stdoutFd = out[1];
    request.stderrFd = err[1];
    if (m_tracking.snapshotBefore)
        m_tracking.snapshotBefore();
    ApiError error;
    m_execution = m_light->host()->exec(m_workspaceId, request, &error);
    // The supervisor holds its own copies now (SCM_RIGHTS): ours must go, or EOF never comes.
    ::close(out[1]);
    ::close(err[1]);
    if (withStdin)
        ::close(in[0]);
    m_out[0] = out[0];
    m_out[1] = err[0];
    m_stdin = withStdin ? in[1] : -1;
    if (!m_execution) {
        for (int s = 0; s < 2; ++s)
            closeStream(s);
        if (m_stdin >= 0)
            ::close(m_stdin);
        m_stdin = -1;
        return error;
    }
    m_light->beginActivity(m_workspaceId);
    m_activity = true;
    for (int s = 0; s < 2; ++s) {
        setNonBlocking(m_out[s]);
        m_outNotifier[s] = new QSocketNotifier(m_out[s], QSocketNotifier::Read, this);
        connect(m_outNotifier[s], &QSocketNotifier::activated, this,
                [this, s] { readStream(s, kReadBudget); });
    }
    if (m_stdin >= 0) {
        setNonBlocking(m_stdin);
        m_stdinNotifier = new QSocketNotifier(m_stdin, QSocketNotifier::Write, this);
        connect(m_stdinNotifier, &QSocketNotifier::activated, this, &LightRun::writeStdin);
        writeStdin();
    }
    QPointer<LightRun> self(this);
    LightService* hop = m_light; // outlives the host's event thread: a safe target to post to
    m_execution->onFinished([self, hop](const LightExitStatus& status) {
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

void LightRun::setPaused(bool paused) {
    if (m_status && paused)
        return;
    for (QSocketNotifier* n : m_outNotifier)
        if (n)
            n->setEnabled(!paused);
}

void LightRun::stop(const QString& status, const QString& reason) {
    if (m_ended)
        return;
    if (m_stopStatus.isEmpty()) {
        m_stopStatus = status;
        m_stopReason = reason;
    }
    if (m_execution)
        m_execution->cancel();
}

void LightRun::writeStdin() {
    const QByteArray& data = m_request.stdinData;
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

void LightRun::readStream(int stream, qint64 budget) {
    char buffer[65536];
    while (m_out[stream] >= 0 && budget > 0) {
        const ssize_t n = ::read(m_out[stream], buffer, sizeof(buffer));
        if (n > 0) {
            budget -= n;
            m_bytes[stream] += n;
            Q_EMIT output(execution::OutputStream(stream), QByteArray(buffer, qsizetype(n)));
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

void LightRun::closeStream(int stream) {
    delete m_outNotifier[stream];
    m_outNotifier[stream] = nullptr;
    if (m_out[stream] >= 0)
        ::close(m_out[stream]);
    m_out[stream] = -1;
}

void LightRun::onFinished(const LightExitStatus& status) {
    m_status = status;
    // Everything the command wrote before it ended is in the pipes now: read it all, whatever
    // the reader's pace (bounded), then wait a little for EOF.
    setPaused(false);
    for (int s = 0; s < 2; ++s)
        readStream(s, kFinalDrainBytes);
    if (!m_ended && (m_out[0] >= 0 || m_out[1] >= 0))
        m_drain.start();
    maybeEnd();
}

void LightRun::maybeEnd() {
    if (m_ended || !m_status || m_out[0] >= 0 || m_out[1] >= 0)
        return;
    execution::ExecutionResult r =
        lightResultOf(*m_status, m_stopStatus, m_stopReason, m_request.timeoutMs);
    if (m_tracking.changesAfter && r.status != QLatin1String("setup_failed"))
        r.changes = m_tracking.changesAfter();
    finishWith(r);
}

void LightRun::finishWith(execution::ExecutionResult result) {
    if (m_ended)
        return;
    m_ended = true;
    m_drain.stop();
    for (int s = 0; s < 2; ++s)
        closeStream(s);
    result.stdoutBytes = m_bytes[0];
    result.stderrBytes = m_bytes[1];
    if (m_activity && m_light)
        m_light->endActivity(m_workspaceId);
    m_activity = false;
    Q_EMIT finished(result);
}

} // namespace runbox::light
