#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QSslSocket>
#include <QString>
#include <QUrl>

#include <utility>

namespace runbox::cli {

/// One plain-HTTP connection to the agent carrying one signed `GET` (docs/contracts.md "Request
/// signing"), read by the caller as the answer arrives: the socket's read buffer is 1 MiB and each
/// read takes at most that, so a caller that handles each piece before asking for the next keeps
/// memory flat (QNetworkAccessManager does not). Used by streamGet (cli/HttpStream) and downloadTo
/// (cli/HttpDownload). Blocking; http:// (port 80 unless the URL gives one) or https:// (443),
/// the certificate decided by tls::connectPinned (docs/contracts.md "TLS and pinning").
class SignedConnection final {
public:
    using Headers = QList<QPair<QByteArray, QByteArray>>;

    SignedConnection();

    /// Connects to @p baseUrl within @p connectTimeoutMs (https://: TLS 1.2+, the certificate
    /// accepted by its @p pin or, without one, by the system store) and sends the request head:
    /// `GET pathAndQuery HTTP/1.1`, Host, `Connection: close`, the signature headers of
    /// RequestSigner (timestamp = now + @p clockOffsetMs), then @p headers. False when the
    /// connection failed (errorString()).
    bool sendGet(const QUrl& baseUrl, const QByteArray& token, const QByteArray& pin,
                 qint64 clockOffsetMs, const QByteArray& pathAndQuery, const Headers& headers,
                 int connectTimeoutMs);

    /// Reads the answer's head (status line and header fields, 64 KiB at most), waiting at most
    /// @p idleTimeoutMs for each read (-1: as long as the connection lives). False when none
    /// came (errorString()).
    bool readHead(int idleTimeoutMs);
    /// The answer's status code (0 before readHead()).
    int status() const { return m_status; }
    /// The value of header field @p lowerName (lower case), trimmed; empty when absent.
    QByteArray header(const QByteArray& lowerName) const;

    /// Body bytes that arrived together with the head (once; empty afterwards).
    QByteArray takeBuffered() { return std::exchange(m_buffered, {}); }
    /// The next body bytes from the socket (1 MiB at most), waiting at most @p idleTimeoutMs
    /// (-1: no limit). Empty when nothing came: the wait timed out or the peer closed.
    QByteArray readBody(int idleTimeoutMs);

    /// The socket's last error, for messages.
    QString errorString() const {
        return m_tlsRefusal.isEmpty() ? m_socket.errorString() : m_tlsRefusal;
    }

private:
    QSslSocket m_socket;  ///< used unencrypted for http://
    QString m_tlsRefusal; ///< why an https:// connection was refused (tls::connectPinned)
    QList<QByteArray> m_headLines;
    QByteArray m_buffered;
    int m_status = 0;
};

} // namespace runbox::cli
