#include "agent/http/ResponseStream.h"

#include <QJsonDocument>

namespace runbox::http {

ResponseStream::ResponseStream(HttpExchange* exchange, StreamWatermarks marks, QObject* parent)
    : QObject(parent), m_exchange(exchange), m_marks(marks) {
    connect(exchange, &HttpExchange::writable, this, &ResponseStream::onWritable);
}

void ResponseStream::begin(const QByteArray& contentType) {
    if (m_exchange)
        m_exchange->beginChunked(200, contentType);
}

void ResponseStream::writeEvent(const QJsonObject& event) {
    writeChunk(QJsonDocument(event).toJson(QJsonDocument::Compact) + '\n');
}

void ResponseStream::writeChunk(const QByteArray& data) {
    if (!m_exchange || m_ended)
        return;
    m_exchange->writeChunk(data);
    checkPressure();
}

void ResponseStream::end(const QByteArray& lastData) {
    if (m_ended)
        return;
    m_ended = true;
    if (m_exchange)
        m_exchange->endChunked(lastData);
}

bool ResponseStream::checkPressure() {
    if (!m_paused && m_exchange && m_exchange->pendingBytes() >= m_marks.pauseAboveBytes) {
        m_paused = true;
        if (m_pauseChanged)
            m_pauseChanged(true);
    }
    return !m_paused;
}

void ResponseStream::onWritable() {
    if (!m_paused || !m_exchange || m_exchange->pendingBytes() >= m_marks.resumeBelowBytes)
        return;
    m_paused = false;
    QPointer<ResponseStream> self(this);
    if (m_pauseChanged)
        m_pauseChanged(false);
    if (self && m_round)
        pump();
}

void ResponseStream::pump() {
    if (!m_round || m_ended)
        return;
    if (m_pumping) {
        m_pumpAgain = true;
        return;
    }
    QPointer<ResponseStream> self(this);
    m_pumping = true;
    do {
        m_pumpAgain = false;
        m_round();
        if (!self)
            return;
    } while (m_pumpAgain && !m_ended);
    m_pumping = false;
}

std::optional<ApiError> ResponseStream::parseOffset(const HttpRequest& request, qint64* offset) {
    bool present = false;
    const QString text = request.queryValue(QStringLiteral("offset"), &present);
    *offset = 0;
    if (!present)
        return std::nullopt;
    bool ok = false;
    const qint64 value = text.toLongLong(&ok);
    if (!ok || value < 0)
        return ApiError{400, QStringLiteral("invalid_offset"),
                        QStringLiteral("offset must be a non-negative integer")};
    *offset = value;
    return std::nullopt;
}

} // namespace runbox::http
