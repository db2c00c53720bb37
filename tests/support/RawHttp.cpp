#include "support/RawHttp.h"

#include "shared/RequestSigner.h"

#include <QDeadlineTimer>
#include <QJsonDocument>

namespace runbox::testsupport {

QByteArray RawHttpResponse::header(const QByteArray& name) const {
    for (const auto& [n, v] : headers)
        if (n.compare(name, Qt::CaseInsensitive) == 0)
            return v;
    return {};
}

QJsonObject RawHttpResponse::json() const {
    return QJsonDocument::fromJson(body).object();
}

QString RawHttpResponse::errorCode() const {
    return json().value(QLatin1String("error")).toObject().value(QLatin1String("code")).toString();
}

bool RawHttpConnection::connectTo(quint16 port, int timeoutMs) {
    m_socket.connectToHost(QStringLiteral("127.0.0.1"), port);
    return m_socket.waitForConnected(timeoutMs);
}

bool RawHttpConnection::send(const QByteArray& bytes, int timeoutMs) {
    if (m_socket.write(bytes) != bytes.size())
        return false;
    QDeadlineTimer deadline(timeoutMs);
    while (m_socket.bytesToWrite() > 0) {
        if (deadline.hasExpired() || !m_socket.waitForBytesWritten(int(deadline.remainingTime())))
            return false;
    }
    return true;
}

bool RawHttpConnection::fill(QDeadlineTimer deadline) {
    if (m_socket.bytesAvailable() == 0) {
        if (m_socket.state() != QAbstractSocket::ConnectedState || deadline.hasExpired())
            return false;
        if (!m_socket.waitForReadyRead(int(std::max<qint64>(1, deadline.remainingTime()))) &&
            m_socket.bytesAvailable() == 0)
            return false;
    }
    m_buffer += m_socket.readAll();
    return true;
}

RawHttpResponse RawHttpConnection::readResponse(int timeoutMs) {
    RawHttpResponse r;
    QDeadlineTimer deadline(timeoutMs);
    qsizetype headEnd;
    while ((headEnd = m_buffer.indexOf("\r\n\r\n")) < 0)
        if (!fill(deadline))
            return r;
    const QList<QByteArray> lines = m_buffer.left(headEnd).split('\n');
    m_buffer.remove(0, headEnd + 4);
    const QList<QByteArray> statusParts = lines.first().trimmed().split(' ');
    r.status = statusParts.size() >= 2 ? statusParts[1].toInt() : 0;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines[i].trimmed();
        const qsizetype colon = line.indexOf(':');
        if (colon > 0)
            r.headers.append({line.left(colon).trimmed(), line.mid(colon + 1).trimmed()});
    }
    if (r.header("transfer-encoding").toLower().contains("chunked")) {
        for (;;) {
            qsizetype lineEnd;
            while ((lineEnd = m_buffer.indexOf("\r\n")) < 0)
                if (!fill(deadline))
                    return r;
            bool ok = false;
            const qsizetype size =
                m_buffer.left(lineEnd).split(';').first().trimmed().toLongLong(&ok, 16);
            if (!ok)
                return r;
            while (m_buffer.size() < lineEnd + 2 + size + 2)
                if (!fill(deadline))
                    return r;
            r.body += m_buffer.mid(lineEnd + 2, size);
            m_buffer.remove(0, lineEnd + 2 + size + 2);
            if (size == 0) {
                r.complete = true;
                return r;
            }
        }
    }
    const QByteArray length = r.header("content-length");
    if (!length.isEmpty()) {
        const qsizetype n = length.toLongLong();
        while (m_buffer.size() < n)
            if (!fill(deadline))
                return r;
        r.body = m_buffer.left(n);
        m_buffer.remove(0, n);
        r.complete = true;
        return r;
    }
    while (fill(deadline)) {
    }
    r.body = m_buffer;
    m_buffer.clear();
    r.complete = m_socket.state() != QAbstractSocket::ConnectedState;
    return r;
}

bool RawHttpConnection::waitForClose(int timeoutMs) {
    QDeadlineTimer deadline(timeoutMs);
    while (m_socket.state() == QAbstractSocket::ConnectedState && !deadline.hasExpired()) {
        m_socket.waitForReadyRead(int(std::max<qint64>(1, deadline.remainingTime())));
        m_buffer += m_socket.readAll();
    }
    return m_socket.state() != QAbstractSocket::ConnectedState;
}

QByteArray buildRequest(const QByteArray& method, const QByteArray& target,
                        const HeaderList& headers, const QByteArray& body) {
    QByteArray out = method + ' ' + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    bool framed = false;
    for (const auto& [name, value] : headers) {
        out += name + ": " + value + "\r\n";
        const QByteArray lower = name.toLower();
        framed = framed || lower == "content-length" || lower == "transfer-encoding";
    }
    if (!framed && (!body.isEmpty() || method == "POST" || method == "PUT"))
        out += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    return out + "\r\n" + body;
}

HeaderList signedHeaders(const QByteArray& token, const QByteArray& method,
                         const QByteArray& target, const QByteArray& body, qint64 timestampMs) {
    return RequestSigner::headersFor(token, method, target, body, timestampMs);
}

QByteArray chunkedBody(const QByteArray& body, qsizetype chunkSize) {
    QByteArray out;
    for (qsizetype pos = 0; pos < body.size(); pos += chunkSize) {
        const QByteArray piece = body.mid(pos, chunkSize);
        out += QByteArray::number(piece.size(), 16) + "\r\n" + piece + "\r\n";
    }
    return out + "0\r\n\r\n";
}

RawHttpResponse rawRoundTrip(quint16 port, const QByteArray& request, int timeoutMs) {
    RawHttpConnection c;
    if (!c.connectTo(port) || !c.send(request))
        return {};
    return c.readResponse(timeoutMs);
}

} // namespace runbox::testsupport
