#include "shared/UploadChunkSigner.h"

#include "shared/Crypto.h"

namespace runbox {

namespace {
constexpr char kChunkPrefix[] = "RUNBOX-CHUNK\n";
constexpr char kSignatureField[] = ";chunk-signature=";
/// `;chunk-signature=` + 64 hex + CRLF.
constexpr qint64 kSizeLineTail = qint64(sizeof kSignatureField - 1) + 64 + 2;

qint64 hexDigits(qint64 value) {
    qint64 n = 1;
    while (value >= 16) {
        value /= 16;
        ++n;
    }
    return n;
}

QByteArray sha256Hex(QByteArrayView data) {
    crypto::Sha256Stream sha;
    sha.addData(data.data(), data.size());
    return sha.finalHex();
}
} // namespace

UploadChunkSigner::UploadChunkSigner(QByteArray key, QByteArray seedSignature)
    : m_key(std::move(key)), m_previous(std::move(seedSignature)) {}

QByteArray UploadChunkSigner::chunkSignature(const QByteArray& key,
                                             const QByteArray& previousSignature,
                                             const QByteArray& dataSha256Hex) {
    QByteArray message;
    message.reserve(qsizetype(sizeof kChunkPrefix) + previousSignature.size() + 65);
    message += kChunkPrefix;
    message += previousSignature;
    message += '\n';
    message += dataSha256Hex;
    return crypto::hmacSha256(key, message).toHex();
}

QByteArray UploadChunkSigner::nextChunkHead(QByteArrayView data) {
    return nextChunkHeadForHash(data.size(), sha256Hex(data));
}

QByteArray UploadChunkSigner::nextChunkHeadForHash(qint64 size, const QByteArray& dataSha256Hex) {
    m_previous = chunkSignature(m_key, m_previous, dataSha256Hex);
    return QByteArray::number(size, 16) + kSignatureField + m_previous + "\r\n";
}

QByteArray UploadChunkSigner::finalChunk() {
    return nextChunkHead({}) + "\r\n";
}

QByteArray UploadChunkSigner::encode(const QByteArray& key, const QByteArray& seedSignature,
                                     QByteArrayView data, qint64 chunkBytes) {
    UploadChunkSigner signer(key, seedSignature);
    QByteArray out;
    out.reserve(encodedLength(data.size(), chunkBytes));
    for (qsizetype pos = 0; pos < data.size(); pos += chunkBytes) {
        const QByteArrayView chunk =
            data.sliced(pos, std::min<qint64>(chunkBytes, data.size() - pos));
        out += signer.nextChunkHead(chunk);
        out += chunk;
        out += "\r\n";
    }
    return out + signer.finalChunk();
}

qint64 UploadChunkSigner::encodedLength(qint64 decodedLength, qint64 chunkBytes) {
    const qint64 full = decodedLength / chunkBytes;
    const qint64 rest = decodedLength % chunkBytes;
    qint64 total = full * (hexDigits(chunkBytes) + kSizeLineTail + chunkBytes + 2);
    if (rest > 0)
        total += hexDigits(rest) + kSizeLineTail + rest + 2;
    return total + 1 + kSizeLineTail + 2; // "0;chunk-signature=…\r\n\r\n"
}

} // namespace runbox
