#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPair>
#include <QUrl>

#include <functional>

class QIODevice;
class QNetworkAccessManager;
class QNetworkReply;
class QNetworkRequest;

namespace runbox {

/// One finished HTTP exchange with an agent.
struct ApiResponse {
    int status = 0;           ///< HTTP status; 0 when the connection failed
    QByteArray body;          ///< raw body
    QString networkError;     ///< transport error text, empty on success
    QJsonObject json() const; ///< body parsed as an object (empty if it is not one)
    bool ok() const { return status >= 200 && status < 300; }
    /// `error.code` of an error body, or "network_error" when no HTTP answer came.
    QString errorCode() const;
    QString errorMessage() const;
};

/// Signed client of the agent's HTTP API (docs/contracts.md "Request signing"), used by the
/// console, the CLI and tests.
///
/// Every request but `GET /health` is signed with the token. The clock offset to the agent is
/// measured from each response's `Date` header (RFC 9110 §6.6.1, 1 s resolution) and added to the
/// timestamp of later requests, so a client whose clock is off by minutes still gets in.
class ApiClient final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ApiClient)
public:
    /// @p baseUrl e.g. http://127.0.0.1:4311 or https://node3:4312 ; @p token the agent or
    /// workspace token (hex).
    ApiClient(const QUrl& baseUrl, const QByteArray& token, QObject* parent = nullptr);
    ~ApiClient() override;

    QUrl baseUrl() const { return m_baseUrl; }
    /// Points later requests at @p baseUrl (the console's SSH tunnel: a new local port at each
    /// start); requests under way are not affected.
    void setBaseUrl(const QUrl& baseUrl) { m_baseUrl = baseUrl; }
    void setToken(const QByteArray& token) { m_token = token; }
    /// Pins the agent's certificate for https:// URLs (docs/contracts.md "TLS and pinning"):
    /// @p sha256 the 32-byte SHA-256 of its DER encoding (tls::parseFingerprint), empty for none.
    /// With a pin only that certificate is accepted, CA-signed or not; without one only a
    /// certificate the system store verifies for the URL's host. A refused connection sends
    /// nothing and ends with status 0 and tls::checkPeer's message in ApiResponse::networkError.
    void setPinnedSha256(const QByteArray& sha256) { m_pin = sha256; }
    QByteArray pinnedSha256() const { return m_pin; }
    /// The TLS refusal (tls::checkPeer) that ended @p reply, empty when none did; for callers
    /// that read replies themselves (ApiResponse::networkError carries it already).
    static QString tlsRefusal(const QNetworkReply* reply);
    /// The SHA-256 of the certificate that tlsRefusal() refused (32 bytes), empty when none was.
    static QByteArray tlsPresentedSha256(const QNetworkReply* reply);
    /// The ApiResponse of a finished @p reply of send() with @p body: its status, and for status
    /// 0 the TLS refusal when one ended it, else the reply's error string.
    static ApiResponse responseOf(const QNetworkReply* reply, const QByteArray& body);
    QByteArray token() const { return m_token; }
    /// Milliseconds to add to the local clock to get the agent's (measured, 0 until known).
    qint64 clockOffsetMs() const { return m_clockOffsetMs; }
    /// The clock offset after a reply whose `Date` header says @p serverDateMs (whole seconds),
    /// sent at @p sentAtMs and whose headers arrived at @p receivedAtMs (local clock), given the
    /// offset @p currentMs so far. An offset the reply allows (the Date read anywhere between
    /// the two instants, so a slow reply allows a wide range) is kept; any other is replaced by
    /// the Date taken as read when the headers arrived, never by a guess halfway through a slow
    /// reply (a 118 s reply then shifted the offset by 59 s, past the ±30 s signature window).
    static qint64 correctedClockOffset(qint64 currentMs, qint64 serverDateMs, qint64 sentAtMs,
                                       qint64 receivedAtMs);

    /// Starts a signed request; the caller owns the reply (deleteLater it). @p pathAndQuery is the
    /// raw, already percent-encoded path + query, e.g. "/v1/workspaces?limit=10".
    QNetworkReply* send(const QByteArray& method, const QByteArray& pathAndQuery,
                        const QByteArray& body = {},
                        const QByteArray& contentType = "application/json",
                        const QList<QPair<QByteArray, QByteArray>>& extraHeaders = {});

    /// Streams @p body as the request body (file uploads: `PUT /v1/workspaces/ID/files/PATH`):
    /// read from its current position to its end, never held in memory as a whole. The request
    /// is signed with @p contentSha256Hex — the body's SHA-256 as lowercase hex, computed
    /// beforehand (sha256OfDevice) — which also travels in `X-Runbox-Content-SHA256`
    /// (docs/upload-integrity.md); the agent refuses to commit a body that does not match it. Use a
    /// random-access device (a file, a buffer): it is sent with Content-Length as the socket
    /// takes it (Qt would read a sequential one whole into memory first, having no chunked
    /// uploads). @p body must stay open until the reply finishes; the caller owns the reply.
    QNetworkReply* sendStream(const QByteArray& method, const QByteArray& pathAndQuery,
                              QIODevice* body, const QByteArray& contentSha256Hex,
                              const QByteArray& contentType = "application/octet-stream");

    /// Streams @p size bytes of @p source (from its current position) as a chunk-signed body
    /// (docs/upload-integrity.md "Chained chunk signatures"): the head is signed over
    /// `STREAMING-RUNBOX-HMAC-SHA256-CHUNKS` with X-Runbox-Decoded-Length: @p size, and each
    /// chunk is read, hashed and signed only as the socket takes it (ChunkSignedBody, a child of
    /// the reply), so nothing is hashed beforehand and one chunk at most is in memory. Works over
    /// http:// and https:// alike (the chunks are a layer inside the HTTP body). @p source must
    /// stay open until the reply finishes; the caller owns the reply; abort() it to cancel (the
    /// agent then publishes nothing).
    QNetworkReply* sendChunkSigned(const QByteArray& method, const QByteArray& pathAndQuery,
                                   QIODevice* source, qint64 size, qint64 chunkBytes = 1024 * 1024);

    /// SHA-256 (lowercase hex) of @p device from its current position to its end, read in
    /// 1 MiB blocks; a random-access device is put back where it was. Empty on a read error.
    static QByteArray sha256OfDevice(QIODevice* device);

    /// Async convenience: calls @p done with the whole response.
    void request(const QByteArray& method, const QByteArray& pathAndQuery, const QByteArray& body,
                 std::function<void(const ApiResponse&)> done);

    /// Blocking convenience (runs a local event loop): for the CLI and tests only, never the GUI.
    ApiResponse call(const QByteArray& method, const QByteArray& pathAndQuery,
                     const QJsonObject& body = {}, int timeoutMs = 60000);
    ApiResponse callRaw(const QByteArray& method, const QByteArray& pathAndQuery,
                        const QByteArray& body, int timeoutMs = 60000);

    /// Streams an NDJSON response: @p onEvent for each event as it arrives; @p done at the end
    /// with the status (and the body when it was an error and not a stream).
    QNetworkReply* stream(const QByteArray& method, const QByteArray& pathAndQuery,
                          const QByteArray& body, std::function<void(const QJsonObject&)> onEvent,
                          std::function<void(const ApiResponse&)> done);

private:
    /// The request for @p pathAndQuery, signed over a body whose hash is @p bodySha256Hex
    /// (empty: `GET /health`, unsigned).
    QNetworkRequest signedRequest(const QByteArray& method, const QByteArray& pathAndQuery,
                                  const QByteArray& bodySha256Hex, qint64 sentAtMs) const;
    void watchDate(QNetworkReply* reply, qint64 sentAtMs);
    void noteServerDate(QNetworkReply* reply, qint64 sentAtMs);

    QNetworkAccessManager* m_nam;
    QUrl m_baseUrl;
    QByteArray m_token;
    QByteArray m_pin; ///< SHA-256 of the pinned certificate, or empty
    qint64 m_clockOffsetMs = 0;
};

} // namespace runbox
