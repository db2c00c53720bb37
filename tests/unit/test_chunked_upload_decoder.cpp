// The chained chunk-signature codec of docs/upload-integrity.md: UploadChunkSigner (client)
// and ChunkedUploadDecoder (agent). Every malformed, tampered, reordered, replayed, spliced or
// truncated body is refused and never reported complete; a good body decodes whatever way its
// bytes are split.
#include "agent/files/ChunkedUploadDecoder.h"
#include "agent/http/ErrorStatus.h"
#include "shared/Crypto.h"
#include "shared/UploadChunkSigner.h"

#include <QTest>

using namespace runbox;
using namespace runbox::files;

namespace {

const QByteArray kKey = "0123456789abcdef0123456789abcdef";
const QByteArray kSeed = crypto::sha256Hex("seed");
const QByteArray kOtherSeed = crypto::sha256Hex("another request");

QByteArray pattern(qsizetype size) {
    QByteArray out(size, Qt::Uninitialized);
    for (qsizetype i = 0; i < size; ++i)
        out[i] = char((i * 7 + i / 251) & 0xff);
    return out;
}

/// Decodes @p body fed in pieces cut at @p cuts; collects data and the first error.
struct Decoded {
    QByteArray data;
    std::optional<Error> error;
    bool complete = false;
    qint64 verified = 0;
    QString code() const { return error ? error->code : QString(); }
};

Decoded decode(const QByteArray& body, qint64 declared, const QList<qsizetype>& cuts = {},
               const QByteArray& key = kKey, const QByteArray& seed = kSeed) {
    ChunkedUploadDecoder decoder(key, seed, declared);
    Decoded d;
    auto sink = [&](QByteArrayView piece) -> std::optional<Error> {
        d.data += piece;
        return std::nullopt;
    };
    qsizetype pos = 0;
    for (qsizetype cut : cuts + QList<qsizetype>{body.size()}) {
        if (!d.error)
            d.error = decoder.feed(QByteArrayView(body).sliced(pos, cut - pos), sink);
        pos = cut;
    }
    if (!d.error)
        d.error = decoder.finish();
    d.complete = decoder.isComplete();
    d.verified = decoder.verifiedChunks();
    return d;
}

/// Splits an encoded body into its chunks (size line + data + CRLF each), final chunk last.
QList<QByteArray> chunksOf(const QByteArray& body) {
    QList<QByteArray> out;
    qsizetype pos = 0;
    while (pos < body.size()) {
        const qsizetype lineEnd = body.indexOf("\r\n", pos) + 2;
        const qint64 size = body.mid(pos, body.indexOf(';', pos) - pos).toLongLong(nullptr, 16);
        const qsizetype end = lineEnd + size + 2;
        out << body.mid(pos, end - pos);
        pos = end;
    }
    return out;
}

} // namespace

class TestChunkedUploadDecoder final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testSignatureChainLayout() {
        // sig_1 = HMAC(key, "RUNBOX-CHUNK\n" + seed + "\n" + hex SHA-256(data)), pinned.
        const QByteArray sig1 =
            crypto::hmacSha256(kKey, "RUNBOX-CHUNK\n" + kSeed + "\n" + crypto::sha256Hex("hello"))
                .toHex();
        QCOMPARE(UploadChunkSigner::chunkSignature(kKey, kSeed, crypto::sha256Hex("hello")), sig1);
        UploadChunkSigner signer(kKey, kSeed);
        QCOMPARE(signer.nextChunkHead("hello"), "5;chunk-signature=" + sig1 + "\r\n");
        const QByteArray last =
            crypto::hmacSha256(kKey, "RUNBOX-CHUNK\n" + sig1 + "\n" + crypto::sha256Hex(""))
                .toHex();
        QCOMPARE(signer.finalChunk(), "0;chunk-signature=" + last + "\r\n\r\n");
    }

    void testRoundTripAndEncodedLength() {
        for (qint64 chunk : {1LL, 7LL, 64LL, 4096LL}) {
            for (qsizetype size : {0, 1, 6, 7, 8, 63, 64, 65, 4095, 4096, 4097, 3 * 4096 + 5}) {
                const QByteArray data = pattern(size);
                const QByteArray body = UploadChunkSigner::encode(kKey, kSeed, data, chunk);
                QCOMPARE(UploadChunkSigner::encodedLength(size, chunk), qint64(body.size()));
                const Decoded d = decode(body, size);
                QVERIFY2(!d.error, qPrintable(d.error ? d.error->message : QString()));
                QVERIFY(d.complete);
                QCOMPARE(d.data, data);
                QCOMPARE(d.verified, (size + chunk - 1) / chunk + 1);
            }
        }
    }

    void testLargestChunkIsAccepted() {
        const QByteArray data = pattern(upload_chunks::kMaxChunkBytes);
        const QByteArray body =
            UploadChunkSigner::encode(kKey, kSeed, data, upload_chunks::kMaxChunkBytes);
        QVERIFY(body.startsWith("800000;"));
        const Decoded d = decode(body, data.size());
        QVERIFY(d.complete);
        QVERIFY(d.data == data);
    }

    void testSplitReadsAtEveryByteBoundary() {
        const QByteArray data = pattern(300);
        const QByteArray body = UploadChunkSigner::encode(kKey, kSeed, data, 64);
        for (qsizetype cut = 0; cut <= body.size(); ++cut) {
            const Decoded d = decode(body, data.size(), {cut});
            QVERIFY2(d.complete && !d.error, qPrintable(QString::number(cut)));
            QCOMPARE(d.data, data);
        }
        QList<qsizetype> everyByte;
        for (qsizetype i = 1; i < body.size(); ++i)
            everyByte << i;
        const Decoded bytewise = decode(body, data.size(), everyByte);
        QVERIFY(bytewise.complete);
        QCOMPARE(bytewise.data, data);
    }

    void testMalformedSizeLine_data() {
        QTest::addColumn<QByteArray>("line");
        const QByteArray sig =
            UploadChunkSigner::chunkSignature(kKey, kSeed, crypto::sha256Hex("abcde"));
        QTest::newRow("not hex") << "g;chunk-signature=" + sig + "\r\n";
        QTest::newRow("empty length") << ";chunk-signature=" + sig + "\r\n";
        QTest::newRow("0x prefix") << "0x5;chunk-signature=" + sig + "\r\n";
        QTest::newRow("sign") << "+5;chunk-signature=" + sig + "\r\n";
        QTest::newRow("space") << " 5;chunk-signature=" + sig + "\r\n";
        QTest::newRow("leading zero") << "05;chunk-signature=" + sig + "\r\n";
        QTest::newRow("no signature") << QByteArray("5\r\n");
        QTest::newRow("other extension") << "5;sig=" + sig + "\r\n";
        QTest::newRow("uppercase signature") << "5;chunk-signature=" + sig.toUpper() + "\r\n";
        QTest::newRow("short signature") << "5;chunk-signature=" + sig.left(63) + "\r\n";
        QTest::newRow("long signature") << "5;chunk-signature=" + sig + "0\r\n";
        QTest::newRow("second extension") << "5;chunk-signature=" + sig + ";x=1\r\n";
        QTest::newRow("bare LF") << "5;chunk-signature=" + sig + "\n";
        QTest::newRow("plain HTTP chunk") << QByteArray("5\r\nabcde\r\n0\r\n\r\n");
        QTest::newRow("endless line") << QByteArray(4096, '5');
    }
    void testMalformedSizeLine() {
        QFETCH(QByteArray, line);
        const Decoded d = decode(line + "abcde\r\n", 5);
        QCOMPARE(d.code(), QStringLiteral("invalid_chunk"));
        QVERIFY(d.data.isEmpty()); // refused before any data byte reached the sink
        QVERIFY(!d.complete);
    }

    void testChunkOver8MiBIsRefusedOnItsSizeLine() {
        const QByteArray sig(64, 'a');
        for (const QByteArray& size :
             {QByteArray("800001"), QByteArray("1000000"), QByteArray("ffffffffffffffff")}) {
            const Decoded d = decode(size + ";chunk-signature=" + sig + "\r\n", 1LL << 40);
            QCOMPARE(d.code(), QStringLiteral("invalid_chunk"));
            QVERIFY(!d.complete);
        }
    }

    void testAlteredDataOrWrongKeyIsAMismatch() {
        const QByteArray data = pattern(200);
        const QByteArray body = UploadChunkSigner::encode(kKey, kSeed, data, 64);
        QVERIFY(decode(body, data.size()).complete); // positive control
        QByteArray altered = body;
        altered[chunksOf(body)[0].size() + 90] ^= 1; // a data byte of chunk 2
        const Decoded a = decode(altered, data.size());
        QCOMPARE(a.code(), QStringLiteral("chunk_signature_mismatch"));
        QCOMPARE(a.verified, 1);
        QVERIFY(!a.complete);
        const Decoded k = decode(body, data.size(), {}, "another token");
        QCOMPARE(k.code(), QStringLiteral("chunk_signature_mismatch"));
        QCOMPARE(k.verified, 0);
    }

    void testReorderedChunksAreAMismatch() {
        const QByteArray data = pattern(192);
        const QList<QByteArray> c = chunksOf(UploadChunkSigner::encode(kKey, kSeed, data, 64));
        QCOMPARE(c.size(), 4);
        const Decoded d = decode(c[1] + c[0] + c[2] + c[3], data.size());
        QCOMPARE(d.code(), QStringLiteral("chunk_signature_mismatch"));
        QCOMPARE(d.verified, 0);
    }

    void testReplayedChunkIsAMismatch() {
        const QByteArray data = pattern(128);
        const QList<QByteArray> c = chunksOf(UploadChunkSigner::encode(kKey, kSeed, data, 64));
        const Decoded d = decode(c[0] + c[0] + c[1] + c[2], data.size() + 64);
        QCOMPARE(d.code(), QStringLiteral("chunk_signature_mismatch"));
        QCOMPARE(d.verified, 1);
        // The final chunk of a shorter upload cannot end this one early either.
        const Decoded early =
            decode(c[0] + chunksOf(UploadChunkSigner::encode(kKey, kSeed, {}))[0], 64);
        QCOMPARE(early.code(), QStringLiteral("chunk_signature_mismatch"));
    }

    void testChunkSplicedFromAnotherRequestIsAMismatch() {
        const QByteArray data = pattern(128);
        const QList<QByteArray> mine = chunksOf(UploadChunkSigner::encode(kKey, kSeed, data, 64));
        const QList<QByteArray> other =
            chunksOf(UploadChunkSigner::encode(kKey, kOtherSeed, data, 64));
        QVERIFY(mine[1] != other[1]); // same data, other chain
        const Decoded d = decode(mine[0] + other[1] + mine[2], data.size());
        QCOMPARE(d.code(), QStringLiteral("chunk_signature_mismatch"));
        QCOMPARE(d.verified, 1);
        // A whole body signed for another request (other seed) fails on its first chunk.
        QCOMPARE(decode(other.join(), data.size()).code(),
                 QStringLiteral("chunk_signature_mismatch"));
    }

    void testEveryTruncationIsIncomplete() {
        const QByteArray data = pattern(150);
        const QByteArray body = UploadChunkSigner::encode(kKey, kSeed, data, 64);
        for (qsizetype len = 0; len < body.size(); ++len) {
            const Decoded d = decode(body.left(len), data.size());
            QVERIFY2(!d.complete, qPrintable(QString::number(len)));
            QCOMPARE(d.code(), QStringLiteral("invalid_chunk"));
        }
    }

    void testMissingFinalChunkIsIncomplete() {
        const QByteArray data = pattern(128);
        const QList<QByteArray> c = chunksOf(UploadChunkSigner::encode(kKey, kSeed, data, 64));
        const Decoded d = decode(c[0] + c[1], data.size());
        QCOMPARE(d.data, data); // every data chunk verified…
        QCOMPARE(d.verified, 2);
        QVERIFY(!d.complete); // …but without the final chunk the body is not complete
        QCOMPARE(d.code(), QStringLiteral("invalid_chunk"));
    }

    void testDecodedLengthMismatch() {
        const QByteArray data = pattern(128);
        const QByteArray body = UploadChunkSigner::encode(kKey, kSeed, data, 64);
        const Decoded shorter = decode(body, 127); // the second chunk would pass 127 bytes
        QCOMPARE(shorter.code(), QStringLiteral("decoded_length_mismatch"));
        QCOMPARE(shorter.data.size(), 64);        // refused on the size line, before its data
        const Decoded longer = decode(body, 129); // the final chunk comes one byte early
        QCOMPARE(longer.code(), QStringLiteral("decoded_length_mismatch"));
        QVERIFY(!longer.complete);
    }

    void testBytesAfterTheFinalChunkAreRefused() {
        const QByteArray body = UploadChunkSigner::encode(kKey, kSeed, "abc");
        QCOMPARE(decode(body + "x", 3).code(), QStringLiteral("invalid_chunk"));
        QCOMPARE(decode(body + body, 3).code(), QStringLiteral("invalid_chunk"));
    }

    void testDataLongerThanItsSizeLineIsRefused() {
        UploadChunkSigner signer(kKey, kSeed);
        const QByteArray head = signer.nextChunkHead("abc");
        const QByteArray body = head + "abcd\r\n" + signer.finalChunk();
        const Decoded d = decode(body, 3);
        QCOMPARE(d.code(), QStringLiteral("invalid_chunk"));
        QVERIFY(!d.complete);
    }

    void testSinkErrorStopsDecodingAndSticks() {
        const QByteArray body = UploadChunkSigner::encode(kKey, kSeed, pattern(256), 64);
        ChunkedUploadDecoder decoder(kKey, kSeed, 256);
        int calls = 0;
        auto sink = [&](QByteArrayView) -> std::optional<Error> {
            if (++calls == 2)
                return Error{ErrorKind::TooLarge, QStringLiteral("upload_too_large"),
                             QStringLiteral("full")};
            return std::nullopt;
        };
        const auto err = decoder.feed(body, sink);
        QVERIFY(err);
        QCOMPARE(runbox::http::httpStatus(err->kind), 413);
        QCOMPARE(calls, 2);
        QCOMPARE(decoder.feed("more", sink)->code, QStringLiteral("upload_too_large"));
        QCOMPARE(decoder.finish()->code, QStringLiteral("upload_too_large"));
        QVERIFY(!decoder.isComplete());
    }
};

QTEST_GUILESS_MAIN(TestChunkedUploadDecoder)
#include "test_chunked_upload_decoder.moc"
