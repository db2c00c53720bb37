#include "shared/ApiClient.h"

#include "shared/ApiError.h"
#include "shared/ChunkSignedBody.h"
#include "shared/Crypto.h"
#include "shared/NdjsonReader.h"
#include "shared/RequestSigner.h"
#include "shared/TlsPin.h"

#include <QDateTime>
#include <QEventLoop>
#include <QJsonDocument>
#include <QLocale>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSslConfiguration>
#include <QTimer>

#include <memory>

namespace runbox {

namespace {
/// The reply properties that hold a TLS refusal (tls::checkPeer) for responseOf, and the SHA-256
/// of the certificate it refused.
constexpr const char* kTlsRefusal = "runboxTlsRefusal";
constexpr const char* kTlsPresented = "runboxTlsPresented";
} // namespace

QJsonObject ApiResponse::json() const {
    return QJsonDocument::fromJson(body).object();
}

QString ApiResponse::errorCode() const {
    if (status == 0)
        return QStringLiteral("network_error");
    ApiError e;
    return ApiError::fromJsonBody(status, body, &e) ? e.code : QString();
}

QString ApiResponse::errorMessage() const {
    if (status == 0)
        return networkError;
    ApiError e;
    return ApiError::fromJsonBody(status, body, &e) ? e.message : QString::fromUtf8(body);
}

ApiClient::ApiClient(const QUrl& baseUrl, const QByteArray& token, QObject* parent)
    : QObject(parent), m_nam(new QNetworkAccessManager(this)), m_baseUrl(baseUrl), m_token(token) {
    m_nam->setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
    // docs/contracts.md "TLS and pinning": a certificate the system store does not vouch for is
    // accepted only by its pin; sslErrors and encrypted both come before the request is sent.
    connect(m_nam, &QNetworkAccessManager::sslErrors, this,
            [this](QNetworkReply* reply, const QList<QSslError>& errors) {
                const QString refusal =
                    tls::checkPeer(reply->sslConfiguration().peerCertificate(), errors, m_pin);
                if (refusal.isEmpty()) {
                    reply->ignoreSslErrors(errors);
                } else {
                    reply->setProperty(kTlsRefusal, refusal);
                    reply->setProperty(
                        kTlsPresented,
                        tls::certificateSha256(reply->sslConfiguration().peerCertificate()));
                }
            });
    connect(m_nam, &QNetworkAccessManager::encrypted, this, [this](QNetworkReply* reply) {
        // A certificate the system store verified raised no sslErrors: the pin is checked here.
        const QString refusal =
            tls::checkPeer(reply->sslConfiguration().peerCertificate(), {}, m_pin);
        if (!refusal.isEmpty() && !m_pin.isEmpty()) {
            reply->setProperty(kTlsRefusal, refusal);
            reply->setProperty(kTlsPresented,
                               tls::certificateSha256(reply->sslConfiguration().peerCertificate()));
            reply->abort();
        }
    });
}

QString ApiClient::tlsRefusal(const QNetworkReply* reply) {
    return reply->property(kTlsRefusal).toString();
}

QByteArray ApiClient::tlsPresentedSha256(const QNetworkReply* reply) {
    return reply->property(kTlsPresented).toByteArray();
}

ApiClient::~ApiClient() = default;

QNetworkRequest ApiClient::signedRequest(const QByteArray& method, const QByteArray& pathAndQuery,
                                         const QByteArray& bodySha256Hex, qint64 sentAtMs) const {
    QUrl url = m_baseUrl;
    const QUrl rel = QUrl::fromEncoded(pathAndQuery, QUrl::StrictMode);
    url.setPath(rel.path(QUrl::FullyEncoded), QUrl::StrictMode);
    url.setQuery(rel.query(QUrl::FullyEncoded), QUrl::StrictMode);
    QNetworkRequest req(url);
    if (url.scheme() == QLatin1String("https")) {
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setProtocol(QSsl::TlsV1_2OrLater); // RFC 8996: nothing older
        req.setSslConfiguration(tls);
    }
    req.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    req.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
    const QByteArray signedTarget = url.toEncoded(QUrl::RemoveScheme | QUrl::RemoveAuthority);
    if (!(method == "GET" && signedTarget == "/health")) {
        for (const auto& [name, value] : RequestSigner::headersForHash(
                 m_token, method, signedTarget, bodySha256Hex, sentAtMs + m_clockOffsetMs))
            req.setRawHeader(name, value);
    }
    return req;
}

void ApiClient::watchDate(QNetworkReply* reply, qint64 sentAtMs) {
    connect(reply, &QNetworkReply::metaDataChanged, this,
            [this, reply, sentAtMs] { noteServerDate(reply, sentAtMs); });
}

QNetworkReply* ApiClient::send(const QByteArray& method, const QByteArray& pathAndQuery,
                               const QByteArray& body, const QByteArray& contentType,
                               const QList<QPair<QByteArray, QByteArray>>& extraHeaders) {
    const qint64 sentAt = QDateTime::currentMSecsSinceEpoch();
    QNetworkRequest req = signedRequest(method, pathAndQuery, crypto::sha256Hex(body), sentAt);
    if (!body.isEmpty() || method == "POST" || method == "PUT")
        req.setHeader(QNetworkRequest::ContentTypeHeader, contentType);
    for (const auto& [name, value] : extraHeaders)
        req.setRawHeader(name, value);
    // HEAD through its own operation: as a custom verb, Qt would wait for the announced body.
    QNetworkReply* reply =
        method == "HEAD" ? m_nam->head(req) : m_nam->sendCustomRequest(req, method, body);
    watchDate(reply, sentAt);
    return reply;
}

QNetworkReply* ApiClient::sendStream(const QByteArray& method, const QByteArray& pathAndQuery,
                                     QIODevice* body, const QByteArray& contentSha256Hex,
                                     const QByteArray& contentType) {
    const qint64 sentAt = QDateTime::currentMSecsSinceEpoch();
    const QByteArray hash = contentSha256Hex.toLower();
    QNetworkRequest req = signedRequest(method, pathAndQuery, hash, sentAt);
    req.setHeader(QNetworkRequest::ContentTypeHeader, contentType);
    req.setRawHeader(auth_headers::kContentSha256, hash);
    // Read the device as the socket takes it, never all of it into memory.
    req.setAttribute(QNetworkRequest::DoNotBufferUploadDataAttribute, true);
    if (!body->isSequential())
        req.setHeader(QNetworkRequest::ContentLengthHeader, body->size() - body->pos());
    QNetworkReply* reply = m_nam->sendCustomRequest(req, method, body);
    watchDate(reply, sentAt);
    return reply;
}

QNetworkReply* ApiClient::sendChunkSigned(const QByteArray& method, const QByteArray& pathAndQuery,
                                          QIODevice* source, qint64 size, qint64 chunkBytes) {
    const qint64 sentAt = QDateTime::currentMSecsSinceEpoch();
    QNetworkRequest req = signedRequest(method, pathAndQuery, upload_chunks::kScheme, sentAt);
    req.setHeader(QNetworkRequest::ContentTypeHeader, QByteArray("application/octet-stream"));
    req.setRawHeader(auth_headers::kContentSha256, upload_chunks::kScheme);
    req.setRawHeader(upload_chunks::kDecodedLengthHeader, QByteArray::number(size));
    req.setAttribute(QNetworkRequest::DoNotBufferUploadDataAttribute, true);
    auto* body = new ChunkSignedBody(source, size, m_token, req.rawHeader(auth_headers::kSignature),
                                     chunkBytes);
    req.setHeader(QNetworkRequest::ContentLengthHeader, body->size());
    QNetworkReply* reply = m_nam->sendCustomRequest(req, method, body);
    body->setParent(reply);
    watchDate(reply, sentAt);
    return reply;
}

QByteArray ApiClient::sha256OfDevice(QIODevice* device) {
    const qint64 start = device->isSequential() ? 0 : device->pos();
    crypto::Sha256Stream sha;
    QByteArray buffer(1024 * 1024, Qt::Uninitialized);
    for (;;) {
        const qint64 n = device->read(buffer.data(), buffer.size());
        if (n < 0)
            return {};
        if (n == 0)
            break;
        sha.addData(buffer.constData(), qsizetype(n));
    }
    if (!device->isSequential() && !device->seek(start))
        return {};
    return sha.finalHex();
}

void ApiClient::noteServerDate(QNetworkReply* reply, qint64 sentAtMs) {
    const QByteArray date = reply->rawHeader("Date");
    if (date.isEmpty())
        return;
    const QDateTime server = QLocale::c().toDateTime(
        QString::fromLatin1(date).trimmed(), QStringLiteral("ddd, dd MMM yyyy HH:mm:ss 'GMT'"));
    if (!server.isValid())
        return;
    const QDateTime utc(server.date(), server.time(), Qt::UTC);
    m_clockOffsetMs = correctedClockOffset(m_clockOffsetMs, utc.toMSecsSinceEpoch(), sentAtMs,
                                           QDateTime::currentMSecsSinceEpoch());
}

qint64 ApiClient::correctedClockOffset(qint64 currentMs, qint64 serverDateMs, qint64 sentAtMs,
                                       qint64 receivedAtMs) {
    // The server read its clock (serverDateMs, whole seconds, so up to 999 ms before its true
    // time) somewhere between the request's start and the headers' arrival: the offsets this
    // reply allows lie in [lo, hi], as wide as the reply was slow.
    const qint64 lo = serverDateMs - receivedAtMs;
    const qint64 hi = serverDateMs + 1000 - sentAtMs;
    if (hi < lo || (currentMs >= lo && currentMs <= hi))
        return currentMs; // consistent with what we know (or a local clock that jumped back)
    // Not consistent: the server writes its Date with the headers, just before they arrive (a
    // midpoint would put a 118 s reply's Date 59 s early); half a second for the resolution.
    return serverDateMs + 500 - receivedAtMs;
}

ApiResponse ApiClient::responseOf(const QNetworkReply* reply, const QByteArray& body) {
    ApiResponse r;
    r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    r.body = body;
    if (r.status == 0) {
        const QString refusal = ApiClient::tlsRefusal(reply);
        r.networkError = refusal.isEmpty() ? reply->errorString() : refusal;
    }
    return r;
}

void ApiClient::request(const QByteArray& method, const QByteArray& pathAndQuery,
                        const QByteArray& body, std::function<void(const ApiResponse&)> done) {
    QNetworkReply* reply = send(method, pathAndQuery, body);
    connect(reply, &QNetworkReply::finished, this, [reply, done = std::move(done)] {
        done(responseOf(reply, reply->readAll()));
        reply->deleteLater();
    });
}

ApiResponse ApiClient::call(const QByteArray& method, const QByteArray& pathAndQuery,
                            const QJsonObject& body, int timeoutMs) {
    const QByteArray raw = body.isEmpty() && method == "GET"
                               ? QByteArray()
                               : QJsonDocument(body).toJson(QJsonDocument::Compact);
    return callRaw(method, pathAndQuery, raw, timeoutMs);
}

ApiResponse ApiClient::callRaw(const QByteArray& method, const QByteArray& pathAndQuery,
                               const QByteArray& body, int timeoutMs) {
    QEventLoop loop;
    ApiResponse out;
    bool finished = false;
    request(method, pathAndQuery, body, [&](const ApiResponse& r) {
        out = r;
        finished = true;
        loop.quit();
    });
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    if (!finished)
        loop.exec();
    if (!finished)
        out.networkError = QStringLiteral("timed out after %1 ms").arg(timeoutMs);
    return out;
}

QNetworkReply* ApiClient::stream(const QByteArray& method, const QByteArray& pathAndQuery,
                                 const QByteArray& body,
                                 std::function<void(const QJsonObject&)> onEvent,
                                 std::function<void(const ApiResponse&)> done) {
    QNetworkReply* reply = send(method, pathAndQuery, body);
    auto reader = std::make_shared<NdjsonReader>();
    auto errorBody = std::make_shared<QByteArray>();
    connect(reply, &QNetworkReply::readyRead, this, [reply, reader, errorBody, onEvent] {
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QByteArray chunk = reply->readAll();
        if (status != 200) {
            *errorBody += chunk;
            return;
        }
        for (const QJsonObject& ev : reader->feed(chunk))
            onEvent(ev);
    });
    connect(reply, &QNetworkReply::finished, this, [reply, errorBody, done] {
        done(responseOf(reply, *errorBody));
        reply->deleteLater();
    });
    return reply;
}

} // namespace runbox
