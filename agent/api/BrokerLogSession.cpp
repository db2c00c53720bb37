#include "agent/api/BrokerLogSession.h"

#include "agent/npu/BrokerJob.h"

#include <QJsonDocument>
#include <QTimer>

#include <csignal>
#include <cstring>

namespace runbox::api {

namespace {
constexpr qint64 kPauseAboveBytes = 1 << 20;
} // namespace

BrokerLogSession::BrokerLogSession(http::HttpExchange* exchange, npu::BrokerJob* job, qint64 offset,
                                   bool follow, QObject* parent)
    : QObject(parent), m_exchange(exchange), m_job(job), m_framer(64 * 1024, offset),
      m_offset(offset), m_follow(follow) {
    exchange->beginChunked(200, "application/x-ndjson");
    connect(job, &npu::BrokerJob::outputAppended, this, &BrokerLogSession::pump);
    connect(job, &npu::BrokerJob::finished, this, &BrokerLogSession::pump);
    connect(job, &QObject::destroyed, this, [this] { finish(false); });
    connect(exchange, &http::HttpExchange::writable, this, &BrokerLogSession::pump);
    connect(exchange, &http::HttpExchange::clientGone, this, &QObject::deleteLater);
    connect(exchange, &QObject::destroyed, this, &QObject::deleteLater);
    QTimer::singleShot(0, this, &BrokerLogSession::pump);
}

QJsonObject BrokerLogSession::exitEventOf(const npu::BrokerJob& job) {
    QString signal;
    if (job.signal() && sigabbrev_np(*job.signal()))
        signal = QStringLiteral("SIG") + QLatin1String(sigabbrev_np(*job.signal()));
    const QJsonObject json = job.toJson();
    QJsonObject ev{{"type", "exit"},
                   {"status", npu::BrokerJob::stateName(job.state())},
                   {"exitCode", job.exitCode() ? QJsonValue(*job.exitCode()) : QJsonValue()},
                   {"signal", signal.isEmpty() ? QJsonValue() : QJsonValue(signal)},
                   {"durationMs", json.value(QLatin1String("durationMs"))},
                   {"truncated", job.truncated()}};
    if (!job.message().isEmpty())
        ev.insert(QStringLiteral("reason"), job.message());
    return ev;
}

void BrokerLogSession::write(const QJsonObject& event) {
    if (m_exchange)
        m_exchange->writeChunk(QJsonDocument(event).toJson(QJsonDocument::Compact) + '\n');
}

void BrokerLogSession::pump() {
    // A write may flush the socket, whose bytesWritten (writable) calls pump() again from inside
    // the loop below: that inner call would send chunks the outer loop still holds in its copy
    // (sent twice, and later ones skipped). Run once more afterwards instead.
    if (m_pumping) {
        m_pumpAgain = true;
        return;
    }
    m_pumping = true;
    do {
        m_pumpAgain = false;
        pumpOnce();
    } while (m_pumpAgain && !m_finished);
    m_pumping = false;
}

void BrokerLogSession::pumpOnce() {
    if (m_finished || !m_exchange || !m_job)
        return;
    const QList<npu::BrokerJob::Chunk> chunks = m_job->chunksFrom(m_nextChunk);
    for (const npu::BrokerJob::Chunk& chunk : chunks) {
        if (m_exchange->pendingBytes() >= kPauseAboveBytes)
            return; // resumed by writable()
        const qint64 start = m_logical;
        m_logical += chunk.data.size();
        ++m_nextChunk;
        if (m_logical <= m_offset)
            continue;
        const qint64 skip = qMax<qint64>(0, m_offset - start);
        m_framer.skipTo(start + skip);
        const auto stream = chunk.stream == npu::BrokerJob::Stream::Stdout
                                ? execution::OutputStream::Stdout
                                : execution::OutputStream::Stderr;
        for (const execution::OutputFrame& frame : m_framer.feed(stream, chunk.data.mid(skip)))
            write(frame.toEvent());
    }
    // Final only once every chunk it recorded has been sent.
    if (m_job->isFinal() && m_nextChunk >= m_job->chunkCount())
        return finish(true);
    if (!m_follow)
        finish(false);
}

void BrokerLogSession::finish(bool withExit) {
    if (m_finished)
        return;
    m_finished = true;
    for (const execution::OutputFrame& frame : m_framer.flush())
        write(frame.toEvent());
    if (withExit && m_job)
        write(exitEventOf(*m_job));
    if (m_exchange)
        m_exchange->endChunked();
    deleteLater();
}

} // namespace runbox::api
