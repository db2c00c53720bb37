#pragma once

#include "shared/UploadChunkSigner.h"

#include <QIODevice>

namespace runbox {

/// The body of a chunk-signed upload (docs/upload-integrity.md) produced as it is read: each
/// chunk of @p size bytes of the source is read, hashed and framed with its chained signature
/// only when the reader reaches it, so at most one chunk is held in memory whatever the file's
/// size. Random access for Qt's sake (it then sends with Content-Length as the socket takes
/// it), but only in order: seek(0) starts over (a resend), any other jump is refused.
/// The source stays owned by the caller and must outlive the device.
class ChunkSignedBody final : public QIODevice {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ChunkSignedBody)
public:
    /// @p source read from its current position; @p key the token the request is signed with;
    /// @p seedSignature the request's X-Runbox-Signature. Opened read-only by the constructor.
    ChunkSignedBody(QIODevice* source, qint64 size, QByteArray key, QByteArray seedSignature,
                    qint64 chunkBytes = upload_chunks::kDefaultChunkBytes,
                    QObject* parent = nullptr);

    bool isSequential() const override { return false; }
    qint64 size() const override { return m_encodedSize; }
    bool seek(qint64 pos) override;
    /// Source (file) bytes read so far.
    qint64 decodedBytesRead() const { return m_decodedRead; }

protected:
    qint64 readData(char* data, qint64 maxSize) override;
    qint64 writeData(const char*, qint64) override { return -1; }

private:
    void restart();
    /// Frames the next chunk (or the final one) into m_pending; false on a source error.
    bool produce();

    QIODevice* m_source;
    qint64 m_sourceStart;
    qint64 m_size;
    qint64 m_chunkBytes;
    qint64 m_encodedSize;
    QByteArray m_key;
    QByteArray m_seed;
    UploadChunkSigner m_signer;
    QByteArray m_pending;     ///< framed bytes not yet read
    qint64 m_pendingPos = 0;  ///< read position in m_pending
    qint64 m_decodedRead = 0; ///< source bytes framed so far
    bool m_finalDone = false; ///< the final chunk was framed
    bool m_failed = false;    ///< the source failed: every later read fails too
};

} // namespace runbox
