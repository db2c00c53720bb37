#include "agent/execution/ExecutionStream.h"

#include <QDateTime>

namespace runbox::execution {

namespace {
constexpr int kPingIntervalMs = 15000;
} // namespace

ExecutionStream::ExecutionStream(ExecutionBackend* backend, Options options, QObject* parent)
    : QObject(parent), m_backend(backend), m_options(std::move(options)) {
    m_ping.setInterval(kPingIntervalMs);
    connect(&m_ping, &QTimer::timeout, this, [this] { send({{"type", "ping"}}); });
    connect(m_backend, &ExecutionBackend::output, this, &ExecutionStream::onOutput);
    connect(m_backend, &ExecutionBackend::finished, this, &ExecutionStream::onFinished);
}

QJsonObject ExecutionStream::setupFailedStarted(const Options& options) {
    QJsonObject started = options.startedFields;
    started.insert(QStringLiteral("type"), QStringLiteral("started"));
    started.insert(QStringLiteral("executionId"), options.executionId);
    started.insert(QStringLiteral("workspace"), options.workspaceId);
    return started;
}

void ExecutionStream::start() {
    m_starting = true;
    m_backend->start();
    m_starting = false;
    QJsonObject started = setupFailedStarted(m_options);
    if (!m_early)
        started.insert(QStringLiteral("startedAt"),
                       QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs));
    send(started);
    if (m_early)
        return onFinished(*m_early);
    m_ping.start();
}

void ExecutionStream::onOutput(OutputStream stream, const QByteArray& data) {
    if (m_limited)
        return; // past the limit: dropped
    QByteArray bytes = data;
    const qint64 limit = m_options.maxOutputBytes;
    m_limited = limit > 0 && m_outputBytes + bytes.size() > limit;
    if (m_limited)
        bytes.truncate(qsizetype(limit - m_outputBytes));
    m_outputBytes += bytes.size();
    for (const OutputFrame& f : m_framer.feed(stream, bytes))
        send(f.toEvent());
    if (m_limited)
        m_backend->stop(QStringLiteral("output_limited"),
                        QStringLiteral("output exceeded maxOutputBytes (%1 bytes)").arg(limit));
}

void ExecutionStream::onFinished(const ExecutionResult& result) {
    if (m_starting) {
        m_early = result;
        return;
    }
    m_ping.stop();
    for (const OutputFrame& f : m_framer.flush())
        send(f.toEvent());
    ExecutionResult r = result;
    r.stdoutBytes = m_framer.bytesFed(OutputStream::Stdout);
    r.stderrBytes = m_framer.bytesFed(OutputStream::Stderr);
    Q_EMIT finished(r);
}

void ExecutionStream::send(const QJsonObject& ev) {
    if (ev.value(QLatin1String("type")).toString() != QLatin1String("ping") && m_ping.isActive())
        m_ping.start();
    Q_EMIT event(ev);
}

} // namespace runbox::execution
