#include "shared/ChunkSignedBody.h"

#include <cstring>

namespace runbox {

ChunkSignedBody::ChunkSignedBody(QIODevice* source, qint64 size, QByteArray key,
                                 QByteArray seedSignature, qint64 chunkBytes, QObject* parent)
    : QIODevice(parent), m_source(source),
      m_sourceStart(source->isSequential() ? 0 : source->pos()), m_size(size),
      m_chunkBytes(qBound<qint64>(1, chunkBytes, upload_chunks::kMaxChunkBytes)),
      m_encodedSize(UploadChunkSigner::encodedLength(size, m_chunkBytes)), m_key(std::move(key)),
      m_seed(std::move(seedSignature)), m_signer(m_key, m_seed) {
    open(QIODevice::ReadOnly | QIODevice::Unbuffered);
}

void ChunkSignedBody::restart() {
    m_signer = UploadChunkSigner(m_key, m_seed);
    m_pending.clear();
    m_pendingPos = 0;
    m_decodedRead = 0;
    m_finalDone = false;
    m_failed = false;
}

bool ChunkSignedBody::seek(qint64 pos) {
    if (pos == 0) {
        if (!m_source->isSequential() && !m_source->seek(m_sourceStart))
            return false;
        if (m_source->isSequential() && m_decodedRead > 0)
            return false;
        restart();
        return QIODevice::seek(0);
    }
    // In order only: the chain of signatures cannot skip a chunk.
    return pos == QIODevice::pos() && QIODevice::seek(pos);
}

bool ChunkSignedBody::produce() {
    m_pending.clear();
    m_pendingPos = 0;
    if (m_decodedRead < m_size) {
        const qint64 want = qMin(m_chunkBytes, m_size - m_decodedRead);
        QByteArray data(qsizetype(want), Qt::Uninitialized);
        qint64 got = 0;
        while (got < want) {
            const qint64 n = m_source->read(data.data() + got, want - got);
            if (n <= 0) {
                if (n == 0 && m_source->waitForReadyRead(0))
                    continue;
                m_failed = true;
                setErrorString(QStringLiteral("the source ended after %1 of %2 bytes")
                                   .arg(m_decodedRead + got)
                                   .arg(m_size));
                return false;
            }
            got += n;
        }
        m_pending = m_signer.nextChunkHead(data) + data + "\r\n";
        m_decodedRead += want;
    } else if (!m_finalDone) {
        m_pending = m_signer.finalChunk();
        m_finalDone = true;
    }
    return true;
}

qint64 ChunkSignedBody::readData(char* data, qint64 maxSize) {
    if (m_failed)
        return -1;
    qint64 copied = 0;
    while (copied < maxSize) {
        if (m_pendingPos >= m_pending.size()) {
            if (m_finalDone)
                break;
            if (!produce())
                return copied > 0 ? copied : -1;
            if (m_pending.isEmpty())
                break;
        }
        const qint64 n = qMin(maxSize - copied, qint64(m_pending.size()) - m_pendingPos);
        std::memcpy(data + copied, m_pending.constData() + m_pendingPos, size_t(n));
        m_pendingPos += n;
        copied += n;
    }
    return copied;
}

} // namespace runbox
