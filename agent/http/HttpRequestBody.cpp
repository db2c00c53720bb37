#include "agent/http/HttpRequestBody.h"

#include <QPointer>

namespace runbox::http {

void HttpRequestBody::accept() {
    if (!m_streamed || m_accepted)
        return;
    m_accepted = true;
    if (m_onFirstAccept)
        m_onFirstAccept();
    Q_EMIT wanted();
}

QByteArray HttpRequestBody::read(qint64 maxBytes) {
    QByteArray out;
    if (maxBytes < 0 || maxBytes >= m_body.size()) {
        out.swap(m_body);
    } else {
        out = m_body.left(maxBytes);
        m_body.remove(0, maxBytes);
    }
    if (!out.isEmpty() && !m_complete)
        Q_EMIT wanted();
    return out;
}

void HttpRequestBody::append(const char* data, qsizetype size) {
    if (m_closed || m_failed || size <= 0)
        return;
    m_body.append(data, size);
    m_received += size;
    m_newData = true;
}

void HttpRequestBody::append(const QByteArray& input, const char* data, qsizetype size) {
    if (m_body.isEmpty() && data == input.constData() && size == input.size() && !m_closed &&
        !m_failed && size > 0) {
        m_body = input; // shared, not copied
        m_received += size;
        m_newData = true;
        return;
    }
    append(data, size);
}

void HttpRequestBody::publish() {
    if (m_closed || m_failed)
        return;
    QPointer<HttpRequestBody> self(this);
    if (m_newData) {
        m_newData = false;
        Q_EMIT readyRead();
    }
    if (self && m_complete && !m_completeSent && !m_closed) {
        m_completeSent = true;
        Q_EMIT complete();
    }
}

bool HttpRequestBody::fail(const ApiError& error) {
    if (m_failed || m_complete)
        return false;
    m_failed = true;
    m_error = error;
    m_body.clear();
    Q_EMIT failed();
    return true;
}

} // namespace runbox::http
