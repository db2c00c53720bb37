#include "agent/api/LightExecSession.h"

#include "agent/api/LightRun.h"

#include <QDateTime>
#include <QJsonDocument>

namespace runbox::api {

namespace {
constexpr qint64 kPauseAboveBytes = 1 << 20;
constexpr qint64 kResumeBelowBytes = 256 << 10;
constexpr int kPingIntervalMs = 15000;
} // namespace

LightExecSession::LightExecSession(http::HttpExchange* exchange, LightService* light,
                                   Options options, QObject* parent)
    : QObject(parent), m_exchange(exchange), m_options(std::move(options)) {
    execution::BackendLaunch launch;
    launch.executionId = m_options.executionId;
    launch.workspaceId = m_options.workspaceId;
    launch.request = &m_options.request;
    launch.fs = m_options.fs;
    m_run = new LightRun(light, launch, this);
    connect(m_run, &LightRun::output, this, &LightExecSession::feed);
    connect(m_run, &LightRun::finished, this, &LightExecSession::end);
    m_ping.setInterval(kPingIntervalMs);
    connect(&m_ping, &QTimer::timeout, this, [this] { write({{"type", "ping"}}); });
}

LightExecSession::~LightExecSession() = default;

std::optional<ApiError> LightExecSession::start() {
    if (auto error = m_run->launch())
        return error;
    if (m_exchange) {
        connect(m_exchange, &http::HttpExchange::clientGone, this, &LightExecSession::clientLeft);
        connect(m_exchange, &QObject::destroyed, this, &LightExecSession::clientLeft);
        connect(m_exchange, &http::HttpExchange::writable, this, [this] {
            if (m_exchange && m_exchange->pendingBytes() < kResumeBelowBytes)
                m_run->setPaused(false);
        });
        m_exchange->beginChunked(200, "application/x-ndjson");
    }
    write({{"type", "started"},
           {"executionId", m_options.executionId},
           {"workspace", m_options.workspaceId},
           {"isolation", "light"},
           {"startedAt", QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)}});
    m_ping.start();
    return std::nullopt;
}

void LightExecSession::stop(const QString& reason) {
    m_run->stop(QStringLiteral("cancelled"), reason);
}

void LightExecSession::clientLeft() {
    m_run->skipFileChanges();
    stop(QStringLiteral("the client disconnected"));
}

void LightExecSession::feed(execution::OutputStream stream, const QByteArray& data) {
    if (m_limited)
        return; // past the limit: dropped
    QByteArray bytes = data;
    const qint64 limit = m_options.request.maxOutputBytes;
    m_limited = limit > 0 && m_outputBytes + bytes.size() > limit;
    if (m_limited)
        bytes.truncate(qsizetype(limit - m_outputBytes));
    m_outputBytes += bytes.size();
    for (const execution::OutputFrame& f : m_framer.feed(stream, bytes))
        write(f.toEvent());
    if (m_limited)
        m_run->stop(QStringLiteral("output_limited"),
                    QStringLiteral("output exceeded maxOutputBytes (%1 bytes)").arg(limit));
}

void LightExecSession::write(const QJsonObject& event) {
    if (event.value(QLatin1String("type")).toString() != QLatin1String("ping") && m_ping.isActive())
        m_ping.start();
    if (!m_exchange || m_exchange->isClientGone())
        return;
    m_exchange->writeChunk(QJsonDocument(event).toJson(QJsonDocument::Compact) + '\n');
    if (m_exchange->pendingBytes() > kPauseAboveBytes)
        m_run->setPaused(true);
}

void LightExecSession::end(execution::ExecutionResult result) {
    m_ping.stop();
    for (const execution::OutputFrame& f : m_framer.flush())
        write(f.toEvent());
    result.stdoutBytes = m_framer.bytesFed(execution::OutputStream::Stdout);
    result.stderrBytes = m_framer.bytesFed(execution::OutputStream::Stderr);
    // The exit event goes out with the terminating chunk, in one write.
    if (m_exchange)
        m_exchange->endChunked(QJsonDocument(result.toEvent()).toJson(QJsonDocument::Compact) +
                               '\n');
    deleteLater();
}

} // namespace runbox::api
