#include "agent/light/tier/LightRun.h"

#include "agent/execution/ChildPipes.h"
#include "agent/execution/WorkspaceChanges.h"
#include "agent/light/LightExecMessage.h"
#include "agent/light/LightWorkspaceHost.h"
#include "agent/light/tier/LightBackgroundBounds.h"
#include "agent/light/tier/LightResult.h"
#include "agent/light/tier/LightService.h"
#include "agent/store/QuotaSettings.h"

#include <QJsonArray>
#include <QPointer>

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
} // namespace

LightRun::LightRun(LightService* light, const execution::TierLaunch& launch, QObject* parent)
    : execution::ExecutionBackend(parent), m_light(light), m_executionId(launch.executionId),
      m_workspaceId(launch.workspaceId), m_request(launch.request),
      m_maxProcesses(store::ExecutionLimits::fromJson(launch.epoch.quotas).maxProcesses),
      m_pipes(new execution::ChildPipes(kReadBudget, this)) {
    connect(m_pipes, &execution::ChildPipes::output, this,
            [this](int stream, const QByteArray& data) {
                Q_EMIT output(execution::OutputStream(stream), data);
            });
    connect(m_pipes, &execution::ChildPipes::streamClosed, this, [this] { maybeEnd(); });
    if (launch.fs)
        execution::trackWorkspaceChanges(&m_tracking, launch.fs);
    m_drain.setSingleShot(true);
    m_drain.setInterval(kDrainBoundMs);
    connect(&m_drain, &QTimer::timeout, this, [this] {
        for (int s : {execution::ChildPipes::Stdout, execution::ChildPipes::Stderr}) {
            m_pipes->drain(s, kFinalDrainBytes, true);
            m_pipes->close(s);
        }
        maybeEnd();
    });
}

LightRun::~LightRun() {
    if (m_execution && !m_execution->isFinished())
        m_execution->cancel();
    if (m_activity && m_light)
        m_light->endActivity(m_workspaceId);
    if (m_running && m_light && m_light->backgroundBounds())
        m_light->backgroundBounds()->execEnded(m_workspaceId);
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

std::optional<Error> LightRun::launch() {
    if (!m_light || !m_light->available())
        return Error{ErrorKind::Unavailable, QStringLiteral("light_unavailable"),
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
        return Error{ErrorKind::Unavailable, QStringLiteral("resources_exhausted"),
                     QStringLiteral("cannot create pipes: %1")
                         .arg(QString::fromLocal8Bit(std::strerror(e)))};
    }
    LightExecRequest request;
    request.argv = m_request.sandboxCommand();
    // A workspace with an environment: the kinds' interpreters are the environment's (the
    // host's are masked in its mount namespace), as EnvironmentStage does for strong ones.
    if (!m_light->environments()->of(m_workspaceId).isEmpty())
        request.argv = LightEnvironments::withEnvironmentInterpreter(request.argv);
    request.env = m_request.env;
    request.cwd = m_request.cwd;
    request.timeoutMs = m_request.timeoutMs;
    request.maxProcesses = m_maxProcesses;
    request.stdinFd = withStdin ? in[0] : -1;
    request.stdoutFd = out[1];
    request.stderrFd = err[1];
    if (m_tracking.snapshotBefore)
        m_tracking.snapshotBefore();
    Error error;
    m_execution = m_light->host()->exec(m_workspaceId, request, &error);
    // The supervisor holds its own copies now (SCM_RIGHTS): ours must go, or EOF never comes.
    ::close(out[1]);
    ::close(err[1]);
    if (withStdin)
        ::close(in[0]);
    if (!m_execution) {
        for (int fd : {out[0], err[0], withStdin ? in[1] : -1})
            if (fd >= 0)
                ::close(fd);
        return error;
    }
    m_light->beginActivity(m_workspaceId);
    m_activity = true;
    if (LightBackgroundBounds* bounds = m_light->backgroundBounds()) {
        const LightBackgroundBounds::Usage before = bounds->execBegan(m_workspaceId);
        m_backgroundProcesses = before.processes;
        m_backgroundBytes = before.bytes;
        m_running = true;
    }
    m_pipes->adopt(withStdin ? in[1] : -1, m_request.stdinData, out[0], err[0]);
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
    m_pipes->setPaused(paused);
}

void LightRun::stop(const QString& status, const QString& reason) {
    if (m_ended)
        return;
    if (m_stopStatus.isEmpty()) {
        m_stopStatus = status;
        m_stopReason = reason;
        // The bound counts the workspace's whole uid (docs/bounds.md "Light workspaces between
        // executions"): say when processes of earlier executions were part of it.
        if (status == QLatin1String("memory_exceeded") && m_backgroundProcesses > 0)
            m_stopReason += QStringLiteral("; this counts the workspace's %1 process(es) left "
                                           "running by earlier executions, which held %2 bytes "
                                           "when it started")
                                .arg(m_backgroundProcesses)
                                .arg(m_backgroundBytes);
    }
    if (m_execution)
        m_execution->cancel();
}

void LightRun::onFinished(const LightExitStatus& status) {
    m_status = status;
    // Everything the command wrote before it ended is in the pipes now: read it all, whatever
    // the reader's pace (bounded), then wait a little for EOF.
    setPaused(false);
    for (int s : {execution::ChildPipes::Stdout, execution::ChildPipes::Stderr})
        m_pipes->drain(s, kFinalDrainBytes, true);
    if (!m_ended && m_pipes->anyOpen())
        m_drain.start();
    maybeEnd();
}

void LightRun::maybeEnd() {
    if (m_ended || !m_status || m_pipes->anyOpen())
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
    m_pipes->close(execution::ChildPipes::Stdout);
    m_pipes->close(execution::ChildPipes::Stderr);
    result.stdoutBytes = m_pipes->bytesRead(execution::ChildPipes::Stdout);
    result.stderrBytes = m_pipes->bytesRead(execution::ChildPipes::Stderr);
    if (m_activity && m_light)
        m_light->endActivity(m_workspaceId);
    m_activity = false;
    if (m_running && m_light && m_light->backgroundBounds())
        m_light->backgroundBounds()->execEnded(m_workspaceId);
    m_running = false;
    Q_EMIT finished(result);
}

} // namespace runbox::light
