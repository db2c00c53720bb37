// UploadStream: an upload body decoded, checked and written on a pool thread. Bytes land in
// order whatever the pieces; the producer is held back above the high-water mark and called
// back below it; a limit crossed, a bad chunk or a cancellation aborts the upload and leaves
// nothing behind.
#include "agent/files/ChunkedUploadDecoder.h"
#include "agent/files/UploadStream.h"
#include "agent/http/ErrorStatus.h"
#include "agent/workspace/WorkspaceFs.h"
#include "shared/Crypto.h"
#include "shared/UploadChunkSigner.h"

#include <QDir>
#include <QFile>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>

using namespace runbox;
using namespace runbox::files;
using namespace runbox::workspace;

namespace {

const QByteArray kKey = "token";
const QByteArray kSeed = crypto::sha256Hex("seed");

QByteArray pattern(qsizetype size) {
    QByteArray out(size, Qt::Uninitialized);
    for (qsizetype i = 0; i < size; ++i)
        out[i] = char((i * 13 + i / 4093) & 0xff);
    return out;
}

} // namespace

class TestUploadStream final : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    std::optional<WorkspaceFs> m_fs;
    QThreadPool m_pool;

    QString dir() const { return m_tmp.path() + QStringLiteral("/ws"); }
    QStringList entries() const {
        return QDir(dir()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
    }
    std::unique_ptr<UploadStream> stream(const char* name, UploadLimits limits = {},
                                         qint64 signedLength = -1) {
        UploadOptions o;
        o.hashContent = signedLength < 0;
        auto up = m_fs->beginUpload(WorkspacePath::fromUrlTail(name).value(), o);
        if (!up)
            return nullptr;
        std::unique_ptr<ChunkedUploadDecoder> decoder;
        if (signedLength >= 0)
            decoder = std::make_unique<ChunkedUploadDecoder>(kKey, kSeed, signedLength);
        return std::make_unique<UploadStream>(&m_pool, std::move(up.value()), limits,
                                              std::move(decoder));
    }

private Q_SLOTS:
    void init() {
        // The named-temp path: an aborted upload's temporary would be visible in the directory.
        WorkspaceUpload::setForceNamedTempForTesting(true);
        QDir(dir()).removeRecursively();
        QVERIFY(QDir().mkpath(dir()));
        auto fs = WorkspaceFs::open(dir());
        QVERIFY(fs.ok());
        m_fs.emplace(std::move(fs.value()));
        m_pool.setMaxThreadCount(2);
    }
    void cleanup() {
        m_pool.waitForDone();
        m_fs.reset();
        WorkspaceUpload::setForceNamedTempForTesting(false);
    }

    void testSignedBodyLandsWhateverThePieces() {
        const QByteArray data = pattern(3 * 1024 * 1024 + 17);
        const QByteArray body = UploadChunkSigner::encode(kKey, kSeed, data, 256 * 1024);
        auto s = stream("signed.bin", {}, data.size());
        QSignalSpy finished(s.get(), &UploadStream::finished);
        for (qsizetype pos = 0, step = 1; pos < body.size(); pos += step, step = step * 3 + 7)
            s->push(body.mid(pos, std::min<qsizetype>(step, body.size() - pos)));
        s->endInput();
        QVERIFY(finished.wait(30000));
        QCOMPARE(s->bytesWritten(), data.size());
        auto up = s->takeUpload();
        QVERIFY(up);
        QVERIFY(up->commit({}).ok());
        QFile f(dir() + "/signed.bin");
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readAll() == data);
    }

    void testProducerIsHeldBackAboveTheHighWaterMark() {
        // One pool thread, kept busy: the stream's job cannot start, the queue only grows.
        m_pool.setMaxThreadCount(1);
        QSemaphore release;
        m_pool.start([&] { release.acquire(); });
        auto s = stream("big.bin");
        QSignalSpy wanted(s.get(), &UploadStream::bodyWanted);
        QSignalSpy finished(s.get(), &UploadStream::finished);
        const QByteArray piece(512 * 1024, 'x');
        int pushed = 0;
        while (s->hasRoom()) {
            s->push(piece);
            ++pushed;
        }
        QCOMPARE(qint64(pushed) * piece.size(), UploadStream::kHighWaterBytes);
        release.release(); // the job runs, drains below the mark and calls the producer back
        QVERIFY(wanted.wait(30000));
        QVERIFY(s->hasRoom());
        s->endInput();
        QVERIFY(finished.count() == 1 || finished.wait(30000));
        QCOMPARE(s->bytesWritten(), UploadStream::kHighWaterBytes);
    }

    void testLimitCrossedIs413AndLeavesNothing() {
        UploadLimits limits;
        limits.path = "over.bin";
        limits.fileLimit = 1000;
        auto s = stream("over.bin", limits);
        QSignalSpy failed(s.get(), &UploadStream::failed);
        s->push(QByteArray(600, 'a'));
        s->push(QByteArray(600, 'b'));
        s->endInput();
        QVERIFY(failed.wait(30000));
        const auto error = failed.first().first().value<Error>();
        QCOMPARE(int(error.kind), int(ErrorKind::TooLarge));
        QCOMPARE(http::httpStatus(error.kind), 413);
        QCOMPARE(error.code, QStringLiteral("upload_too_large"));
        QVERIFY(!s->takeUpload());
        QCOMPARE(entries(), QStringList()); // aborted before the failure was reported
    }

    void testBadChunkFailsAndLeavesNothing() {
        const QByteArray data = pattern(300 * 1024);
        QByteArray body = UploadChunkSigner::encode(kKey, kSeed, data, 100 * 1024);
        body[body.size() / 2] = char(body[body.size() / 2] ^ 1);
        auto s = stream("bad.bin", {}, data.size());
        QSignalSpy failed(s.get(), &UploadStream::failed);
        s->push(body);
        s->endInput();
        QVERIFY(failed.wait(30000));
        const auto error = failed.first().first().value<Error>();
        QCOMPARE(error.code, QStringLiteral("chunk_signature_mismatch"));
        QCOMPARE(http::httpStatus(error.kind), 400); // the decoder's status, kept
        QVERIFY(!s->takeUpload());
        QCOMPARE(entries(), QStringList());
    }

    void testCancelAbortsTheUploadEvenWhileAJobRuns() {
        auto s = stream("gone.bin");
        QCOMPARE(entries().size(), 1); // positive control: the temporary is visible
        for (int i = 0; i < 8; ++i)
            s->push(QByteArray(1024 * 1024, 'c'));
        s.reset(); // a job may be writing right now
        m_pool.waitForDone();
        QCOMPARE(entries(), QStringList());
    }
};

QTEST_GUILESS_MAIN(TestUploadStream)
#include "test_upload_stream.moc"
