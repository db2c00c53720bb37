#pragma once

#include <QByteArray>
#include <QByteArrayView>

namespace runbox {

/// Names and bounds of the chained chunk-signature upload scheme (docs/upload-integrity.md).
namespace upload_chunks {
/// The value of X-Runbox-Content-SHA256 (and of the signed body hash) for a chunk-signed body.
inline constexpr char kScheme[] = "STREAMING-RUNBOX-HMAC-SHA256-CHUNKS";
/// The decoded body's size in bytes (the file's size); required with kScheme.
inline constexpr char kDecodedLengthHeader[] = "X-Runbox-Decoded-Length";
/// Largest data length of one chunk, in bytes (8 MiB).
inline constexpr qint64 kMaxChunkBytes = 8 * 1024 * 1024;
/// Chunk size the CLI sends, in bytes: small enough to overlap hashing and sending, large
/// enough that the per-chunk HMAC and framing (~90 bytes) cost nothing.
inline constexpr qint64 kDefaultChunkBytes = 1024 * 1024;
} // namespace upload_chunks

/// The client side of the chained chunk signatures of docs/upload-integrity.md: frames each
/// chunk of a streamed upload as `<hex length>;chunk-signature=<sig_i>\r\n<data>\r\n`, with
/// sig_i = lowercase hex HMAC-SHA256(key = token, "RUNBOX-CHUNK\n" + sig_{i-1} + "\n" +
/// HEX_SHA256(data_i)) and sig_0 = the request's X-Runbox-Signature; the body ends with the
/// signed empty chunk `0;chunk-signature=<sig>\r\n\r\n`. Signing a chunk advances the chain,
/// so chunks must be sent in the order they were signed. The verifying side is the agent's
/// files::ChunkedUploadDecoder (agent/files/).
class UploadChunkSigner final {
public:
    /// @p key: the token the request is signed with; @p seedSignature: the request's
    /// X-Runbox-Signature (64 lowercase hex).
    UploadChunkSigner(QByteArray key, QByteArray seedSignature);

    /// sig_i for a chunk whose data hash is @p dataSha256Hex, chained to @p previousSignature.
    static QByteArray chunkSignature(const QByteArray& key, const QByteArray& previousSignature,
                                     const QByteArray& dataSha256Hex);

    /// Signs @p data as the next chunk (1 to kMaxChunkBytes bytes) and returns its size line,
    /// `<hex length>;chunk-signature=<sig>\r\n`; the caller sends it, then @p data, then "\r\n".
    QByteArray nextChunkHead(QByteArrayView data);
    /// The same for data of @p size bytes already hashed by the caller.
    QByteArray nextChunkHeadForHash(qint64 size, const QByteArray& dataSha256Hex);
    /// The signed final chunk, complete: `0;chunk-signature=<sig>\r\n\r\n`.
    QByteArray finalChunk();

    /// The whole encoded body of @p data cut into chunks of @p chunkBytes (small uploads, tests).
    static QByteArray encode(const QByteArray& key, const QByteArray& seedSignature,
                             QByteArrayView data,
                             qint64 chunkBytes = upload_chunks::kDefaultChunkBytes);
    /// Size in bytes of the encoded body of @p decodedLength data bytes cut into chunks of
    /// @p chunkBytes (the last one shorter), final chunk included: the Content-Length to send.
    static qint64 encodedLength(qint64 decodedLength,
                                qint64 chunkBytes = upload_chunks::kDefaultChunkBytes);

private:
    QByteArray m_key;
    QByteArray m_previous;
};

} // namespace runbox
