#include "shared/LogFrames.h"

#include <QJsonDocument>
#include <QtEndian>

#include <algorithm>

namespace runbox::logframes {

void appendHeader(QByteArray* out, FrameType type, quint32 length) {
    char header[kHeaderSize] = {char(type), 0, 0, 0};
    qToBigEndian(length, header + 4);
    out->append(header, kHeaderSize);
}

void appendOutput(QByteArray* out, FrameType stream, QByteArrayView payload) {
    appendHeader(out, stream, quint32(payload.size()));
    out->append(payload);
}

void appendEvent(QByteArray* out, const QJsonObject& event) {
    const QByteArray json = QJsonDocument(event).toJson(QJsonDocument::Compact);
    appendHeader(out, FrameType::Event, quint32(json.size()));
    out->append(json);
}

FrameDecoder::FrameDecoder(std::function<void(FrameType, QByteArrayView)> onOutput,
                           std::function<void(const QJsonObject&)> onEvent)
    : m_onOutput(std::move(onOutput)), m_onEvent(std::move(onEvent)) {}

bool FrameDecoder::startFrame() {
    const quint8 type = quint8(m_header[0]);
    const quint32 length = qFromBigEndian<quint32>(m_header + 4);
    m_headerFill = 0;
    if (type < 1 || type > 3 || m_header[1] || m_header[2] || m_header[3]) {
        m_error = QStringLiteral("not a log frame header (type %1)").arg(type);
        return false;
    }
    m_type = FrameType(type);
    const quint32 limit = m_type == FrameType::Event ? kMaxEventPayload : kMaxOutputPayload;
    if (length > limit) {
        m_error =
            QStringLiteral("log frame of %1 bytes is above the limit of %2").arg(length).arg(limit);
        return false;
    }
    m_remaining = length;
    m_event.clear();
    return true;
}

bool FrameDecoder::feed(QByteArrayView data) {
    if (!m_error.isEmpty())
        return false;
    while (!data.isEmpty()) {
        if (m_remaining == 0 && m_headerFill < kHeaderSize) {
            const qsizetype n = std::min<qsizetype>(kHeaderSize - m_headerFill, data.size());
            std::copy_n(data.data(), n, m_header + m_headerFill);
            m_headerFill += int(n);
            data = data.sliced(n);
            if (m_headerFill < kHeaderSize)
                return true;
            if (!startFrame())
                return false;
        }
        const qsizetype n = std::min<qsizetype>(m_remaining, data.size());
        if (m_type == FrameType::Event) {
            m_event.append(data.first(n));
        } else if (n > 0) {
            m_onOutput(m_type, data.first(n));
        }
        m_remaining -= quint32(n);
        data = data.sliced(n);
        if (m_remaining == 0 && m_type == FrameType::Event) {
            QJsonParseError parseError;
            const QJsonDocument doc = QJsonDocument::fromJson(m_event, &parseError);
            if (!doc.isObject()) {
                m_error = QStringLiteral("log event frame is not a JSON object");
                return false;
            }
            m_event.clear();
            m_type = FrameType::Stdout; // back at a boundary
            m_onEvent(doc.object());
        }
    }
    return true;
}

} // namespace runbox::logframes
