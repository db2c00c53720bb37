#include "cli/SignedConnection.h"

#include "shared/RequestSigner.h"
#include "shared/TlsPin.h"

#include <QDateTime>

namespace runbox::cli {

namespace {
constexpr qint64 kReadBytes = 1024 * 1024;
constexpr qsizetype kMaxHeadBytes = 64 * 1024;
} // namespace

SignedConnection::SignedConnection() {
    m_socket.setReadBufferSize(kReadBytes);
}

bool SignedConnection::sendGet(const QUrl& baseUrl, const QByteArray& token, const QByteArray& pin,
                               qint64 clockOffsetMs, const QByteArray& pathAndQuery,
                               const Headers& headers, int connectTimeoutMs) {
    if (baseUrl.scheme() == QLatin1String("https")) {
        m_tlsRefusal = tls::connectPinned(&m_socket, baseUrl, pin, connectTimeoutMs);
        if (!m_tlsRefusal.isEmpty())
            return false;
    } else {
        m_socket.connectToHost(baseUrl.host(), quint16(baseUrl.port(80)));
        if (!m_socket.waitForConnected(connectTimeoutMs))
            return false;
    }
    QByteArray request = "GET " + pathAndQuery +
                         " HTTP/1.1\r\nHost: " + baseUrl.authority().toUtf8() +
                         "\r\nConnection: close\r\n";
    for (const auto& [name, value] : RequestSigner::headersFor(
             token, "GET", pathAndQuery, {}, QDateTime::currentMSecsSinceEpoch() + clockOffsetMs))
        request += name + ": " + value + "\r\n";
    for (const auto& [name, value] : headers)
        request += name + ": " + value + "\r\n";
    m_socket.write(request + "\r\n");
    return true;
}

bool SignedConnection::readHead(int idleTimeoutMs) {
    QByteArray buffer;
    qsizetype headEnd = -1;
    while ((headEnd = buffer.indexOf("\r\n\r\n")) < 0) {
        if (buffer.size() > kMaxHeadBytes)
            return false;
        const QByteArray more = readBody(idleTimeoutMs);
        if (more.isEmpty())
            return false;
        buffer += more;
    }
    m_headLines = buffer.left(headEnd).split('\n');
    m_status = m_headLines.first().split(' ').value(1).toInt();
    m_buffered = buffer.mid(headEnd + 4);
    return true;
}

QByteArray SignedConnection::header(const QByteArray& lowerName) const {
    for (const QByteArray& line : m_headLines) {
        const qsizetype colon = line.indexOf(':');
        if (colon > 0 && line.left(colon).trimmed().toLower() == lowerName)
            return line.mid(colon + 1).trimmed();
    }
    return {};
}

QByteArray SignedConnection::readBody(int idleTimeoutMs) {
    if (m_socket.bytesAvailable() == 0 && !m_socket.waitForReadyRead(idleTimeoutMs))
        return {};
    return m_socket.read(kReadBytes);
}

} // namespace runbox::cli
