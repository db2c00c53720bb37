#pragma once

#include "agent/Error.h"
#include "shared/Crypto.h"

#include <QByteArray>
#include <QByteArrayView>

#include <functional>
#include <optional>

namespace runbox::files {

/// The verifying side of the chained chunk signatures (docs/upload-integrity.md; the encoder is
/// UploadChunkSigner). Decodes a body of `<hex length>;chunk-signature=<64 hex>\r\n<data>\r\n`
/// chunks ended by the signed empty chunk, fed in pieces of any size (split anywhere), and
/// checks each chunk's signature, chained from the request's signature, as soon as its data
/// is complete.
///
/// Data bytes go to the sink as they arrive, BEFORE their chunk's signature is checked (so a
/// chunk is never buffered): the consumer must treat them as unverified and publish nothing
/// unless isComplete() — the final chunk verified and exactly the declared number of bytes
/// decoded.
///
/// Rules (each violation is an InvalidArgument error, 400; the first one sticks, later feeds
/// return it, as does the first error of the data sink):
/// - `invalid_chunk`: a size line that is not 1 to 6 hex digits without leading zeros (a lone
///   "0" is the final chunk), `;chunk-signature=` and 64 lowercase hex digits, then CRLF; a
///   data length over kMaxChunkBytes (8 MiB); data not followed by CRLF; any byte after the
///   final chunk; the body ending before the final chunk (finish()).
/// - `chunk_signature_mismatch`: a signature that is not the expected one (wrong key, reordered,
///   replayed, spliced from another request, altered data), compared in constant time.
/// - `decoded_length_mismatch`: the chunks declare more bytes than the declared decoded
///   length (found on the size line, before the data), or the final chunk comes early.
class ChunkedUploadDecoder final {
public:
    /// Receives decoded (not yet verified) data; returns an error to stop decoding.
    using DataSink = std::function<std::optional<Error>(QByteArrayView)>;

    /// @p key: the token that verified the request head; @p seedSignature: its
    /// X-Runbox-Signature; @p decodedLength: X-Runbox-Decoded-Length, in bytes.
    ChunkedUploadDecoder(QByteArray key, QByteArray seedSignature, qint64 decodedLength);

    /// Consumes @p input; data goes to @p sink. Returns the first error (the decoder is then
    /// failed for good), std::nullopt otherwise.
    std::optional<Error> feed(QByteArrayView input, const DataSink& sink);
    /// At the end of the body: an error unless the final chunk was verified.
    std::optional<Error> finish();

    /// The final chunk verified and the decoded length is the declared one.
    bool isComplete() const { return m_state == State::Done; }
    /// Data bytes decoded so far (handed to the sink).
    qint64 decodedBytes() const { return m_decoded; }
    /// Chunks whose signature verified, the final one included.
    qint64 verifiedChunks() const { return m_verified; }

    /// Longest size line accepted, CRLF included, in bytes.
    static constexpr qsizetype kMaxSizeLineBytes = 6 + 17 + 64 + 2;

private:
    enum class State { SizeLine, Data, DataEnd, Done, Failed };
    std::optional<Error> fail(const char* code, const QString& message);
    std::optional<Error> parseSizeLine();
    std::optional<Error> verifyChunk();

    QByteArray m_key;
    QByteArray m_previous; ///< sig_{i-1}
    qint64 m_declaredLength;
    State m_state = State::SizeLine;
    QByteArray m_line;      ///< the size line (or the CRLF after data) so far
    QByteArray m_signature; ///< the current chunk's declared signature
    qint64 m_chunkBytes = 0;
    qint64 m_remaining = 0; ///< data bytes of the current chunk still to come
    qint64 m_decoded = 0;
    qint64 m_verified = 0;
    crypto::Sha256Stream m_sha;
    Error m_error;
};

} // namespace runbox::files
