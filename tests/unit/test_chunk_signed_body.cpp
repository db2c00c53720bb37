// ChunkSignedBody (shared/): the chunk-signed upload body of docs/upload-integrity.md produced
// as it is read. Whatever the sizes and however it is read, it is byte for byte what
// UploadChunkSigner::encode gives (the encoding test_chunked_upload_decoder verifies against the
// agent's decoder); its size is the Content-Length announced; seek(0) starts over and gives the
// same bytes; any other jump is refused; a source shorter than announced is a read error.
#include "shared/ChunkSignedBody.h"
#include "shared/Crypto.h"

#include <QBuffer>
#include <QTest>

using namespace runbox;

namespace {
const QByteArray kKey = "0123456789abcdef0123456789abcdef";
const QByteArray kSeed = crypto::sha256Hex("seed");

QByteArray pattern(qsizetype size) {
    QByteArray out(size, Qt::Uninitialized);
    for (qsizetype i = 0; i < size; ++i)
        out[i] = char((i * 7 + i / 251) & 0xff);
    return out;
}

/// Everything @p body yields, read @p slice bytes at a time.
QByteArray readAll(QIODevice* body, qint64 slice) {
    QByteArray out;
    QByteArray buffer(qsizetype(slice), Qt::Uninitialized);
    for (;;) {
        const qint64 n = body->read(buffer.data(), slice);
        if (n <= 0)
            break;
        out.append(buffer.constData(), qsizetype(n));
    }
    return out;
}
} // namespace

class TestChunkSignedBody final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void matchesTheEncoder_data() {
        QTest::addColumn<int>("size");
        QTest::addColumn<int>("chunk");
        QTest::addColumn<int>("slice");
        QTest::newRow("empty") << 0 << 1000 << 64;
        QTest::newRow("one byte") << 1 << 1000 << 7;
        QTest::newRow("chunk - 1") << 999 << 1000 << 333;
        QTest::newRow("one chunk") << 1000 << 1000 << 4096;
        QTest::newRow("chunk + 1") << 1001 << 1000 << 1;
        QTest::newRow("3.5 chunks, odd slices") << 3500 << 1000 << 77;
        QTest::newRow("default chunk, 2.5 MiB") << (5 << 19) << 1024 * 1024 << 16384;
    }
    void matchesTheEncoder() {
        QFETCH(int, size);
        QFETCH(int, chunk);
        QFETCH(int, slice);
        const QByteArray data = pattern(size);
        QBuffer source;
        source.setData(data);
        QVERIFY(source.open(QIODevice::ReadOnly));
        ChunkSignedBody body(&source, size, kKey, kSeed, chunk);
        const QByteArray expected = UploadChunkSigner::encode(kKey, kSeed, data, chunk);
        QCOMPARE(body.size(), qint64(expected.size()));
        QCOMPARE(body.size(), UploadChunkSigner::encodedLength(size, chunk));
        const QByteArray got = readAll(&body, slice);
        QCOMPARE(got.size(), expected.size());
        QVERIFY(got == expected);
        QCOMPARE(body.decodedBytesRead(), qint64(size));
        QVERIFY(body.atEnd());
    }

    void seekZeroStartsOver() {
        const QByteArray data = pattern(5000);
        QBuffer source;
        source.setData(data);
        QVERIFY(source.open(QIODevice::ReadOnly));
        ChunkSignedBody body(&source, data.size(), kKey, kSeed, 1000);
        const QByteArray expected = UploadChunkSigner::encode(kKey, kSeed, data, 1000);
        QCOMPARE(body.read(2500), expected.left(2500));
        QVERIFY(!body.seek(100));  // backwards: refused
        QVERIFY(!body.seek(4000)); // forwards past what was read: refused
        QVERIFY(body.seek(2500));  // where it is: fine
        QVERIFY(body.seek(0));
        QCOMPARE(body.pos(), 0);
        QVERIFY(readAll(&body, 123) == expected);
    }

    void shortSourceIsAReadError() {
        QBuffer source;
        source.setData(pattern(1500));
        QVERIFY(source.open(QIODevice::ReadOnly));
        ChunkSignedBody body(&source, 3000, kKey, kSeed, 1000); // announces more than there is
        QByteArray buffer(100000, Qt::Uninitialized);
        qint64 total = 0;
        qint64 n = 0;
        while ((n = body.read(buffer.data(), 700)) > 0)
            total += n;
        QCOMPARE(n, qint64(-1));
        QVERIFY(total < body.size());
        QVERIFY2(body.errorString().contains(QStringLiteral("1500 of 3000")),
                 qPrintable(body.errorString()));
    }
};

QTEST_GUILESS_MAIN(TestChunkSignedBody)
#include "test_chunk_signed_body.moc"
