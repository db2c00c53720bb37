#include "agent/files/ChunkedUploadDecoder.h"

#include "shared/Crypto.h"
#include "shared/UploadChunkSigner.h"

namespace runbox::files {

namespace {
constexpr char kSignatureField[] = "chunk-signature=";

bool isHexDigit(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

} // namespace

ChunkedUploadDecoder::ChunkedUploadDecoder(QByteArray key, QByteArray seedSignature,
                                           qint64 decodedLength)
    : m_key(std::move(key)), m_previous(std::move(seedSignature)), m_declaredLength(decodedLength) {
}

std::optional<Error> ChunkedUploadDecoder::fail(const char* code, const QString& message) {
    m_state = State::Failed;
    m_error = Error{ErrorKind::InvalidArgument, QString::fromLatin1(code), message};
    return m_error;
}

std::optional<Error> ChunkedUploadDecoder::feed(QByteArrayView input, const DataSink& sink) {
    qsizetype pos = 0;
    while (pos < input.size()) {
        switch (m_state) {
        case State::Failed:
            return m_error;
        case State::Done:
            return fail("invalid_chunk", QStringLiteral("bytes after the final chunk"));
        case State::SizeLine: {
            const qsizetype newline = input.indexOf('\n', pos);
            const qsizetype end = newline < 0 ? input.size() : newline + 1;
            if (m_line.size() + (end - pos) > kMaxSizeLineBytes)
                return fail("invalid_chunk",
                            QStringLiteral("chunk size line %1 is longer than %2 bytes")
                                .arg(m_verified + 1)
                                .arg(kMaxSizeLineBytes));
            m_line.append(input.sliced(pos, end - pos));
            pos = end;
            if (newline >= 0)
                if (auto err = parseSizeLine())
                    return err;
            break;
        }
        case State::Data: {
            const qsizetype n = qsizetype(std::min<qint64>(m_remaining, input.size() - pos));
            const QByteArrayView data = input.sliced(pos, n);
            m_sha.addData(data.data(), data.size());
            m_remaining -= n;
            m_decoded += n;
            pos += n;
            if (auto err = sink(data)) {
                m_state = State::Failed;
                m_error = *err;
                return err;
            }
            if (m_remaining == 0)
                if (auto err = verifyChunk())
                    return err;
            break;
        }
        case State::DataEnd: {
            const char expected = m_line.isEmpty() ? '\r' : '\n';
            if (input[pos] != expected)
                return fail("invalid_chunk",
                            QStringLiteral("chunk %1: its data is not followed by CRLF "
                                           "(data longer than its size line says?)")
                                .arg(m_verified));
            ++pos;
            m_line += expected;
            if (m_line.size() == 2) {
                m_line.clear();
                m_state = m_chunkBytes == 0 ? State::Done : State::SizeLine;
            }
            break;
        }
        }
    }
    return m_state == State::Failed ? std::optional<Error>(m_error) : std::nullopt;
}

std::optional<Error> ChunkedUploadDecoder::parseSizeLine() {
    const qint64 index = m_verified + 1;
    auto malformed = [&] {
        return fail("invalid_chunk",
                    QStringLiteral("chunk %1: malformed size line (want <hex length>;"
                                   "chunk-signature=<64 lowercase hex>CRLF)")
                        .arg(index));
    };
    if (!m_line.endsWith("\r\n"))
        return malformed();
    const QByteArrayView line = QByteArrayView(m_line).chopped(2);
    const qsizetype semicolon = line.indexOf(';');
    if (semicolon <= 0)
        return malformed();
    const QByteArrayView hex = line.first(semicolon);
    for (char c : hex)
        if (!isHexDigit(c))
            return malformed();
    if (hex.size() > 1 && hex[0] == '0')
        return malformed(); // one spelling per length: no leading zeros
    const QByteArrayView field = line.sliced(semicolon + 1);
    if (!field.startsWith(kSignatureField) ||
        !crypto::isLowerHex(field.sliced(qsizetype(sizeof kSignatureField - 1)), 64))
        return malformed();
    qint64 size = 0;
    if (hex.size() <= 6)
        size = QByteArray(hex.data(), hex.size()).toLongLong(nullptr, 16);
    if (hex.size() > 6 || size > upload_chunks::kMaxChunkBytes)
        return fail("invalid_chunk", QStringLiteral("chunk %1: data length over %2 bytes")
                                         .arg(index)
                                         .arg(upload_chunks::kMaxChunkBytes));
    if (m_decoded + size > m_declaredLength)
        return fail("decoded_length_mismatch",
                    QStringLiteral("chunk %1 takes the body past its declared %2 bytes")
                        .arg(index)
                        .arg(m_declaredLength));
    if (size == 0 && m_decoded != m_declaredLength)
        return fail("decoded_length_mismatch",
                    QStringLiteral("the final chunk came after %1 of the declared %2 bytes")
                        .arg(m_decoded)
                        .arg(m_declaredLength));
    m_signature = field.sliced(qsizetype(sizeof kSignatureField - 1)).toByteArray();
    m_line.clear();
    m_chunkBytes = size;
    m_remaining = size;
    m_state = State::Data;
    return size == 0 ? verifyChunk() : std::nullopt;
}

std::optional<Error> ChunkedUploadDecoder::verifyChunk() {
    const QByteArray expected =
        UploadChunkSigner::chunkSignature(m_key, m_previous, m_sha.finalHex());
    if (!crypto::constantTimeEquals(expected, m_signature))
        return fail("chunk_signature_mismatch",
                    QStringLiteral("chunk %1: signature does not match (altered, reordered, "
                                   "replayed or from another request)")
                        .arg(m_verified + 1));
    m_previous = expected;
    ++m_verified;
    m_state = State::DataEnd;
    return std::nullopt;
}

std::optional<Error> ChunkedUploadDecoder::finish() {
    if (m_state == State::Done || m_state == State::Failed)
        return m_state == State::Failed ? std::optional<Error>(m_error) : std::nullopt;
    return fail("invalid_chunk",
                QStringLiteral("the body ended before its final chunk (%1 of %2 bytes decoded)")
                    .arg(m_decoded)
                    .arg(m_declaredLength));
}

} // namespace runbox::files
