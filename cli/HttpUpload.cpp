#include "cli/HttpUpload.h"

#include "shared/Crypto.h"
#include "shared/RequestSigner.h"

#include <QDateTime>
#include <QIODevice>
#include <QTcpSocket>

#include <cerrno>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>

namespace runbox::cli {

namespace {

constexpr qsizetype kMaxHeadBytes = 64 * 1024;
constexpr qsizetype kMaxBodyBytes = 64 * 1024;
/// How long the head waits for `100 Continue` before the body goes anyway (RFC 9110 §10.1.1:
/// a client need not wait indefinitely). The agent answers once its quota checks are done.
constexpr int kContinueWaitMs = 3000;

/// Writes all of @p data to the non-blocking socket @p fd, waiting for room with poll(2).
/// False on an error or timeout (errno set).
bool sendAll(int fd, QByteArrayView data, int timeoutMs) {
    while (!data.isEmpty()) {
        const ssize_t n = ::send(fd, data.data(), size_t(data.size()), MSG_NOSIGNAL);
        if (n >= 0) {
            data = data.sliced(n);
            continue;
        }
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return false;
        pollfd p{fd, POLLOUT, 0};
        const int ready = ::poll(&p, 1, timeoutMs);
        if (ready == 0)
            errno = ETIMEDOUT;
        if (ready <= 0 && errno != EINTR)
            return false;
    }
    return true;
}

/// True when the agent has sent something (an answer) or closed the connection.
bool readable(int fd, int timeoutMs) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, timeoutMs) > 0;
}

/// Reads one answer (head and Content-Length body) into @p r; skips `100 Continue` when
/// @p skipContinue, else returns with status 100 after its head. False: no whole head came.
bool readAnswer(QTcpSocket& socket, QByteArray* buffer, UploadResult* r, bool skipContinue,
                int timeoutMs) {
    for (;;) {
        qsizetype headEnd = -1;
        while ((headEnd = buffer->indexOf("\r\n\r\n")) < 0) {
            if (buffer->size() > kMaxHeadBytes ||
                (socket.bytesAvailable() == 0 && !socket.waitForReadyRead(timeoutMs)))
                return false;
            *buffer += socket.readAll();
        }
        const QList<QByteArray> lines = buffer->left(headEnd).split('\n');
        buffer->remove(0, headEnd + 4);
        r->status = lines.first().split(' ').value(1).toInt();
        if (r->status == 100 && skipContinue)
            continue;
        if (r->status >= 100 && r->status < 200)
            return true;
        qint64 length = -1;
        for (const QByteArray& line : lines)
            if (line.toLower().startsWith("content-length:"))
                length = line.mid(15).trimmed().toLongLong();
        while ((length < 0 || buffer->size() < length) && buffer->size() < kMaxBodyBytes &&
               (socket.bytesAvailable() > 0 || socket.waitForReadyRead(timeoutMs)))
            *buffer += socket.readAll();
        r->body = buffer->left(length < 0 ? kMaxBodyBytes : std::min(length, kMaxBodyBytes));
        return true;
    }
}

QByteArray headerValue(const QList<QPair<QByteArray, QByteArray>>& headers, const char* name) {
    for (const auto& [n, v] : headers)
        if (n == name)
            return v;
    return {};
}

} // namespace

UploadResult uploadFrom(const QUrl& baseUrl, const QByteArray& token, qint64 clockOffsetMs,
                        const QByteArray& pathAndQuery, QIODevice* source, qint64 size,
                        int timeoutMs, qint64 chunkBytes) {
    UploadResult r;
    QTcpSocket socket;
    socket.connectToHost(baseUrl.host(), quint16(baseUrl.port(80)));
    if (!socket.waitForConnected(timeoutMs)) {
        r.transportError = socket.errorString();
        return r;
    }
    const int fd = int(socket.socketDescriptor());
    const auto auth =
        RequestSigner::headersForHash(token, "PUT", pathAndQuery, upload_chunks::kScheme,
                                      QDateTime::currentMSecsSinceEpoch() + clockOffsetMs);
    QByteArray head = "PUT " + pathAndQuery + " HTTP/1.1\r\nHost: " + baseUrl.authority().toUtf8() +
                      "\r\nConnection: close\r\nContent-Type: application/octet-stream\r\n"
                      "Expect: 100-continue\r\nContent-Length: " +
                      QByteArray::number(UploadChunkSigner::encodedLength(size, chunkBytes)) +
                      "\r\n" + auth_headers::kContentSha256 + ": " + upload_chunks::kScheme +
                      "\r\n" + upload_chunks::kDecodedLengthHeader + ": " +
                      QByteArray::number(size) + "\r\n";
    for (const auto& [name, value] : auth)
        head += name + ": " + value + "\r\n";
    QByteArray answer; // received bytes not yet parsed
    const auto fail = [&](const QString& what) {
        r.transportError =
            QStringLiteral("%1: %2").arg(what, QString::fromLocal8Bit(std::strerror(errno)));
        return r;
    };
    if (!sendAll(fd, head + "\r\n", timeoutMs))
        return fail(QStringLiteral("cannot send the request"));
    bool continued = false;
    // An answer before (or instead of) 100 Continue: a refusal on the head; a late 100 or an
    // answer while sending: handled between chunks.
    const auto answered = [&](int waitMs) {
        if (answer.isEmpty() && socket.bytesAvailable() == 0 && !readable(fd, waitMs))
            return false;
        if (!readAnswer(socket, &answer, &r, continued, timeoutMs)) {
            r.status = 0; // closed without an answer: stop sending, report it
            return true;
        }
        if (r.status == 100) {
            continued = true;
            return false;
        }
        return true;
    };
    const auto early = [&] {
        r.answeredEarly = true;
        if (r.status == 0)
            r.transportError = QStringLiteral("the agent closed the connection without answering");
        return r;
    };
    if (answered(kContinueWaitMs))
        return early();
    UploadChunkSigner signer(token, headerValue(auth, auth_headers::kSignature));
    crypto::Sha256Stream sha;
    QByteArray buffer(qsizetype(std::min(chunkBytes, std::max<qint64>(size, 1))),
                      Qt::Uninitialized);
    bool sendFailed = false;
    while (r.bytesSent < size && !sendFailed) {
        const qint64 want = std::min<qint64>(chunkBytes, size - r.bytesSent);
        qint64 got = 0;
        while (got < want) {
            const qint64 n = source->read(buffer.data() + got, want - got);
            if (n <= 0) {
                r.sourceError = n < 0 ? source->errorString()
                                      : QStringLiteral("the file ended after %1 of %2 bytes")
                                            .arg(r.bytesSent + got)
                                            .arg(size);
                return r; // the connection closes with the body incomplete: nothing lands
            }
            got += n;
        }
        sha.addData(buffer.constData(), got);
        const QByteArray chunkHead = signer.nextChunkHeadForHash(got, sha.finalHex());
        sendFailed = !sendAll(fd, chunkHead, timeoutMs) ||
                     !sendAll(fd, QByteArrayView(buffer).first(got), timeoutMs) ||
                     !sendAll(fd, "\r\n", timeoutMs);
        if (!sendFailed)
            r.bytesSent += got;
        if (!sendFailed && answered(0))
            return early();
    }
    if (!sendFailed && !sendAll(fd, signer.finalChunk(), timeoutMs))
        sendFailed = true;
    const int sendErrno = errno;
    // After a failed send the agent may still have answered (it refused and closed).
    if (readAnswer(socket, &answer, &r, true, timeoutMs) && r.status != 0) {
        r.answeredEarly = sendFailed;
        return r;
    }
    r.status = 0;
    if (sendFailed) {
        errno = sendErrno;
        return fail(QStringLiteral("the upload broke off"));
    }
    r.transportError = QStringLiteral("no answer: %1").arg(socket.errorString());
    return r;
}

} // namespace runbox::cli
