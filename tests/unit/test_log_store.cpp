#include "agent/http/ErrorStatus.h"
#include "agent/store/LogFollower.h"
#include "agent/store/LogFormat.h"
#include "agent/store/LogStore.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace runbox::store;

namespace {

/// What a log should contain: every byte in logical order, and which stream it came from.
struct Expected {
    QByteArray bytes;
    QByteArray streams; ///< 'o' or 'e' per byte

    void add(LogStream stream, const QByteArray& data) {
        bytes.append(data);
        streams.append(QByteArray(data.size(), stream == LogStream::Stdout ? 'o' : 'e'));
    }
};

/// Everything read from @p from to the current end, @p step bytes per read, as (bytes, streams),
/// with gaps rendered as '#' bytes tagged 'g'.
Expected readThrough(const LogStore& store, const QString& id, qint64 from, qint64 step,
                     QList<LogChunk>* chunks = nullptr) {
    Expected seen;
    qint64 offset = from;
    for (int guard = 0; guard < 1000000; ++guard) {
        LogReadResult result;
        if (const auto error = store.read(id, offset, step, &result)) {
            qWarning("read failed: %s", qPrintable(error->message));
            break;
        }
        qint64 expectedOffset = offset;
        for (const LogChunk& chunk : std::as_const(result.chunks)) {
            if (chunk.offset != expectedOffset)
                qWarning("chunk at %lld, expected %lld", chunk.offset, expectedOffset);
            expectedOffset = chunk.endOffset();
            if (chunk.kind == LogChunk::Kind::Gap) {
                seen.bytes.append(QByteArray(chunk.gapBytes, '#'));
                seen.streams.append(QByteArray(chunk.gapBytes, 'g'));
            } else {
                seen.bytes.append(chunk.data);
                seen.streams.append(QByteArray(chunk.data.size(),
                                               chunk.kind == LogChunk::Kind::Stdout ? 'o' : 'e'));
            }
            if (chunks)
                chunks->append(chunk);
        }
        if (result.nextOffset != expectedOffset)
            qWarning("nextOffset %lld, chunks end at %lld", result.nextOffset, expectedOffset);
        if (result.nextOffset >= result.endOffset)
            break;
        offset = result.nextOffset;
    }
    return seen;
}

QByteArray randomBytes(QRandomGenerator& rng, qint64 n) {
    QByteArray data(n, Qt::Uninitialized);
    for (char& c : data)
        c = char(rng.bounded(256));
    return data;
}

/// Appends @p total bytes in random chunks of 1..maxChunk bytes on random streams.
Expected fill(LogStore& store, const QString& id, QRandomGenerator& rng, qint64 total,
              int maxChunk) {
    Expected expected;
    while (expected.bytes.size() < total) {
        const qint64 n = std::min<qint64>(1 + rng.bounded(maxChunk), total - expected.bytes.size());
        const LogStream stream = rng.bounded(3) == 0 ? LogStream::Stderr : LogStream::Stdout;
        const QByteArray data = randomBytes(rng, n);
        const qint64 at = store.append(id, stream, data);
        if (at != expected.bytes.size())
            qWarning("append returned %lld, expected %lld", at, qint64(expected.bytes.size()));
        expected.add(stream, data);
    }
    return expected;
}

qint64 retainedDataOnDisk(const QString& dir, const QString& id) {
    qint64 total = 0;
    for (const QFileInfo& info : QDir(dir).entryInfoList({id + QStringLiteral(".log*")}))
        total += info.size() - logformat::kSegmentHeaderSize;
    return total;
}

} // namespace

class TestLogStore final : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_root;
    QString m_state; ///< this test function's state directory
    std::unique_ptr<LogStore> m_store;

    void reopen() {
        m_store = std::make_unique<LogStore>(m_state);
        QString error;
        QVERIFY2(m_store->initialize(&error), qPrintable(error));
    }

private Q_SLOTS:
    void init() {
        m_state = m_root.filePath(QString::fromLatin1(QTest::currentTestFunction()));
        reopen();
    }
    void cleanup() { m_store.reset(); }

    void testResumingFromEveryOffsetYieldsExactlyTheUnseenBytes() {
        QRandomGenerator rng(7);
        QVERIFY(!m_store->create(QStringLiteral("every"), 0));
        const Expected expected = fill(*m_store, QStringLiteral("every"), rng, 3000, 40);
        QVERIFY(!m_store->finish(QStringLiteral("every")));
        for (qint64 from = 0; from <= expected.bytes.size(); ++from) {
            const Expected seen =
                readThrough(*m_store, QStringLiteral("every"), from, 1 + rng.bounded(300));
            QCOMPARE(seen.bytes, expected.bytes.mid(from));
            QCOMPARE(seen.streams, expected.streams.mid(from));
        }
    }

    void testLargeChunksAreSplitAndReassembled() {
        QRandomGenerator rng(11);
        QVERIFY(!m_store->create(QStringLiteral("big"), 0));
        const Expected expected = fill(*m_store, QStringLiteral("big"), rng, 3 << 20, 300000);
        QVERIFY(!m_store->finish(QStringLiteral("big")));
        for (const qint64 step : {qint64(1) << 30, qint64(65536), qint64(4093)}) {
            const Expected seen = readThrough(*m_store, QStringLiteral("big"), 0, step);
            QCOMPARE(seen.bytes.size(), expected.bytes.size());
            QVERIFY(seen.bytes == expected.bytes);
            QVERIFY(seen.streams == expected.streams);
        }
        for (int i = 0; i < 50; ++i) {
            const qint64 from = rng.bounded(qint64(expected.bytes.size()));
            const Expected seen = readThrough(*m_store, QStringLiteral("big"), from, 100000);
            QVERIFY(seen.bytes == expected.bytes.mid(from));
        }
        LogInfo info;
        QVERIFY(!m_store->info(QStringLiteral("big"), &info));
        QCOMPARE(info.endOffset, qint64(expected.bytes.size()));
        QCOMPARE(info.stdoutBytes + info.stderrBytes, info.endOffset);
        QCOMPARE(info.stderrBytes, qint64(expected.streams.count('e')));
        QVERIFY(info.finished);
        QVERIFY(!info.lost);
    }

    void testReloadedLogReadsTheSame() {
        QRandomGenerator rng(3);
        QVERIFY(!m_store->create(QStringLiteral("reload"), 0));
        const Expected expected = fill(*m_store, QStringLiteral("reload"), rng, 700000, 9000);
        QVERIFY(!m_store->finish(QStringLiteral("reload")));
        reopen();
        LogInfo info;
        QVERIFY(!m_store->info(QStringLiteral("reload"), &info));
        QVERIFY(info.finished);
        QCOMPARE(info.endOffset, qint64(expected.bytes.size()));
        QCOMPARE(info.stdoutBytes, qint64(expected.streams.count('o')));
        for (const qint64 from : {qint64(0), qint64(1), qint64(262143), qint64(500001)}) {
            const Expected seen = readThrough(*m_store, QStringLiteral("reload"), from, 77777);
            QVERIFY(seen.bytes == expected.bytes.mid(from));
            QVERIFY(seen.streams == expected.streams.mid(from));
        }
    }

    void testRetentionKeepsHeadAndTailAroundAGap() {
        const qint64 limit = 1 << 20; // head 512 KiB, tail 512 KiB in 64 KiB segments
        const LogRetention retention = LogRetention::forLimit(limit);
        QCOMPARE(retention.headBytes, limit / 2);
        QCOMPARE(retention.segmentBytes, qint64(64 * 1024));
        QRandomGenerator rng(5);
        QVERIFY(!m_store->create(QStringLiteral("ret"), limit));
        const qint64 total = 5 * limit + 12345;
        const Expected expected = fill(*m_store, QStringLiteral("ret"), rng, total, 50000);
        QVERIFY(retainedDataOnDisk(m_store->logsDir(), QStringLiteral("ret")) <=
                limit + 64 * logformat::kRecordHeaderSize * 20); // data + record headers
        QVERIFY(!m_store->finish(QStringLiteral("ret")));
        for (int pass = 0; pass < 2; ++pass) {
            LogInfo info;
            QVERIFY(!m_store->info(QStringLiteral("ret"), &info));
            QCOMPARE(info.endOffset, total);
            QCOMPARE(info.stdoutBytes + info.stderrBytes, total); // counts include dropped bytes
            const qint64 tail = total - retention.headBytes - info.droppedBytes;
            QVERIFY(info.droppedBytes > 0);
            QVERIFY2(tail <= retention.tailBytes, qPrintable(QString::number(tail)));
            QVERIFY(tail > retention.tailBytes - retention.segmentBytes);

            QList<LogChunk> chunks;
            const Expected seen = readThrough(*m_store, QStringLiteral("ret"), 0, 300000, &chunks);
            const qint64 gapStart = retention.headBytes;
            const qint64 gapEnd = gapStart + info.droppedBytes;
            QCOMPARE(seen.bytes.size(), qint64(total));
            QVERIFY(seen.bytes.left(gapStart) == expected.bytes.left(gapStart));
            QVERIFY(seen.streams.left(gapStart) == expected.streams.left(gapStart));
            QCOMPARE(seen.streams.mid(gapStart, gapEnd - gapStart),
                     QByteArray(gapEnd - gapStart, 'g'));
            QVERIFY(seen.bytes.mid(gapEnd) == expected.bytes.mid(gapEnd));
            QVERIFY(seen.streams.mid(gapEnd) == expected.streams.mid(gapEnd));
            int gaps = 0;
            for (const LogChunk& c : std::as_const(chunks))
                gaps += c.kind == LogChunk::Kind::Gap;
            QCOMPARE(gaps, 1); // one marker: retentionTruncated

            // Resuming inside the gap reports the rest of the gap, then the exact tail.
            const qint64 inside = gapStart + info.droppedBytes / 3;
            LogReadResult result;
            QVERIFY(!m_store->read(QStringLiteral("ret"), inside, 10, &result));
            QVERIFY(result.chunks.first().kind == LogChunk::Kind::Gap);
            QCOMPARE(result.chunks.first().offset, inside);
            QCOMPARE(result.chunks.first().endOffset(), gapEnd);
            QCOMPARE(result.chunks.at(1).data, expected.bytes.mid(gapEnd, 10));
            // Resuming in the tail at an arbitrary byte.
            const Expected rest = readThrough(*m_store, QStringLiteral("ret"), gapEnd + 777, 4096);
            QVERIFY(rest.bytes == expected.bytes.mid(gapEnd + 777));
            reopen(); // the second pass reads the same from disk
        }
    }

    void testTinyRetentionLimitStillBoundsAndNeverFails() {
        QRandomGenerator rng(9);
        QVERIFY(!m_store->create(QStringLiteral("tiny"), 10));
        const Expected expected = fill(*m_store, QStringLiteral("tiny"), rng, 2000, 37);
        LogInfo info;
        QVERIFY(!m_store->info(QStringLiteral("tiny"), &info));
        QCOMPARE(info.endOffset, qint64(2000));
        QVERIFY(info.endOffset - info.droppedBytes <= 10);
        const Expected seen = readThrough(*m_store, QStringLiteral("tiny"), 0, 100);
        QCOMPARE(seen.bytes.left(5), expected.bytes.left(5));
        QVERIFY(!m_store->finish(QStringLiteral("tiny")));
    }

    void testUnlimitedRetentionDropsNothing() {
        QRandomGenerator rng(1);
        QVERIFY(!m_store->create(QStringLiteral("unl"), 0));
        fill(*m_store, QStringLiteral("unl"), rng, 2 << 20, 100000);
        LogInfo info;
        QVERIFY(!m_store->info(QStringLiteral("unl"), &info));
        QCOMPARE(info.droppedBytes, qint64(0));
        QCOMPARE(QDir(m_store->logsDir()).entryList({QStringLiteral("unl.log*")}).size(), 1);
    }

    void testFinishedLogRefusesAppendsAndOffsetsPastItsEnd() {
        QVERIFY(!m_store->create(QStringLiteral("fin"), 0));
        QCOMPARE(m_store->append(QStringLiteral("fin"), LogStream::Stdout, "abc"), qint64(0));
        QCOMPARE(m_store->append(QStringLiteral("fin"), LogStream::Stderr, "de"), qint64(3));
        QVERIFY(!m_store->finish(QStringLiteral("fin")));
        runbox::Error error;
        QCOMPARE(m_store->append(QStringLiteral("fin"), LogStream::Stdout, "x", &error),
                 qint64(-1));
        QCOMPARE(runbox::http::httpStatus(error.kind), 409);
        LogReadResult result;
        QVERIFY(!m_store->read(QStringLiteral("fin"), 5, 10, &result)); // exactly at the end
        QVERIFY(result.chunks.isEmpty());
        QVERIFY(result.atEnd());
        const auto past = m_store->read(QStringLiteral("fin"), 6, 10, &result);
        QVERIFY(past);
        QCOMPARE(past->code, QStringLiteral("invalid_offset"));
        QVERIFY(m_store->read(QStringLiteral("fin"), -1, 10, &result));
    }

    void testLiveLogPastItsEndWaitsInsteadOfFailing() {
        QVERIFY(!m_store->create(QStringLiteral("live"), 0));
        m_store->append(QStringLiteral("live"), LogStream::Stdout, "abc");
        LogReadResult result;
        QVERIFY(!m_store->read(QStringLiteral("live"), 10, 10, &result));
        QVERIFY(result.chunks.isEmpty());
        QCOMPARE(result.nextOffset, qint64(10));
        QVERIFY(!result.atEnd());
    }

    void testBadIdsAndMissingLogs() {
        for (const QString& bad : {QStringLiteral("../escape"), QStringLiteral("a/b"),
                                   QStringLiteral(".log"), QString()}) {
            const auto error = m_store->create(bad, 0);
            QVERIFY2(error, qPrintable(bad));
            QCOMPARE(runbox::http::httpStatus(error->kind), 400);
        }
        QVERIFY(!QFile::exists(m_state + QStringLiteral("/escape.log")));
        LogReadResult result;
        const auto missing = m_store->read(QStringLiteral("nothing"), 0, 10, &result);
        QVERIFY(missing);
        QCOMPARE(missing->code, QStringLiteral("log_not_found"));
        QVERIFY(!m_store->create(QStringLiteral("dup"), 0));
        QCOMPARE(runbox::http::httpStatus(m_store->create(QStringLiteral("dup"), 0)->kind), 409);
        reopen();
        QCOMPARE(runbox::http::httpStatus(m_store->create(QStringLiteral("dup"), 0)->kind),
                 409); // file exists
    }

    void testTornTailIsCutAndTheLogClosedAsLost() {
        QRandomGenerator rng(21);
        QVERIFY(!m_store->create(QStringLiteral("torn"), 0));
        const Expected expected = fill(*m_store, QStringLiteral("torn"), rng, 100000, 3000);
        m_store.reset(); // the agent dies without finishing the log
        const QString path = m_state + QStringLiteral("/logs/torn.log");
        QFile file(path);
        QVERIFY(file.open(QIODevice::Append));
        // A record header promising 1000 bytes, with only 10 of them written.
        char header[logformat::kRecordHeaderSize];
        logformat::encodeRecordHeader(
            logformat::RecordHeader{logformat::RecordType::Stdout, 1000, expected.bytes.size()},
            header);
        file.write(header, sizeof header);
        file.write(QByteArray(10, 'z'));
        file.close();

        reopen();
        LogInfo info;
        QVERIFY(!m_store->info(QStringLiteral("torn"), &info));
        QVERIFY(!info.finished);
        QCOMPARE(info.endOffset, qint64(expected.bytes.size()));
        QStringList errors;
        QCOMPARE(m_store->recoverAll(QStringLiteral("agent was killed"), &errors),
                 QStringList{QStringLiteral("torn")});
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
        reopen();
        QVERIFY(!m_store->info(QStringLiteral("torn"), &info));
        QVERIFY(info.finished);
        QVERIFY(info.lost);
        QCOMPARE(info.endReason, QStringLiteral("agent was killed"));
        const Expected seen = readThrough(*m_store, QStringLiteral("torn"), 0, 1 << 20);
        QVERIFY(seen.bytes == expected.bytes);
        QVERIFY(m_store->recoverAll(QStringLiteral("again")).isEmpty()); // idempotent
    }

    void testLogsWithoutOutputHoldNoFileDescriptor() {
        const auto openFds = [] { return QDir(QStringLiteral("/proc/self/fd")).count(); };
        const qsizetype before = openFds();
        for (int i = 0; i < 50; ++i)
            QVERIFY(!m_store->create(QStringLiteral("q%1").arg(i), 0));
        QCOMPARE(openFds(), before); // queued executions can have logs without costing an fd
        QCOMPARE(m_store->append(QStringLiteral("q1"), LogStream::Stdout, "x"), qint64(0));
        QCOMPARE(openFds(), before + 1); // control: a log being written holds its segment
        QVERIFY(!m_store->finish(QStringLiteral("q1")));
        QVERIFY(!m_store->finish(QStringLiteral("q2"))); // finishing without output works too
        QCOMPARE(openFds(), before);
        LogReadResult r;
        QVERIFY(!m_store->read(QStringLiteral("q2"), 0, 10, &r));
        QVERIFY(r.atEnd());
    }

    void testFinishedLogsAreRecognisedWithoutAScan() {
        const QString logs = m_store->logsDir();
        QVERIFY(!m_store->create(QStringLiteral("empty"), 0));
        QVERIFY(!ExecutionLog::endsWithEndRecord(logs, QStringLiteral("empty")));
        QVERIFY(!m_store->create(QStringLiteral("done"), 100000));
        QRandomGenerator rng(2);
        fill(*m_store, QStringLiteral("done"), rng, 300000, 9000);
        QVERIFY(!ExecutionLog::endsWithEndRecord(logs, QStringLiteral("done")));
        QVERIFY(!m_store->finish(QStringLiteral("done")));
        QVERIFY(ExecutionLog::endsWithEndRecord(logs, QStringLiteral("done")));
        QVERIFY(!ExecutionLog::endsWithEndRecord(logs, QStringLiteral("absent")));
        m_store.reset();
        reopen();
        QCOMPARE(m_store->recoverAll(QStringLiteral("x")), QStringList{QStringLiteral("empty")});
        QVERIFY(ExecutionLog::endsWithEndRecord(logs, QStringLiteral("empty")));
    }

    void testCrashDuringSegmentCreationIsRecovered() {
        QRandomGenerator rng(4);
        QVERIFY(!m_store->create(QStringLiteral("seg"), 200000));
        const Expected expected = fill(*m_store, QStringLiteral("seg"), rng, 150000, 5000);
        m_store.reset();
        const QStringList files =
            QDir(m_state + QStringLiteral("/logs"))
                .entryList({QStringLiteral("seg.log.*")}, QDir::Files, QDir::Name);
        QVERIFY(!files.isEmpty());
        // The next segment file exists but holds half a header.
        QFile next(m_state + QStringLiteral("/logs/seg.log.999"));
        QVERIFY(next.open(QIODevice::WriteOnly));
        next.write("RBXLOGS1\x01\x00");
        next.close();
        reopen();
        QCOMPARE(m_store->recoverAll(QStringLiteral("killed")), QStringList{QStringLiteral("seg")});
        QVERIFY(!QFile::exists(next.fileName()));
        const Expected seen = readThrough(*m_store, QStringLiteral("seg"), 0, 1 << 20);
        QCOMPARE(seen.bytes.size(), expected.bytes.size());
        const qint64 head = LogRetention::forLimit(200000).headBytes;
        QVERIFY(seen.bytes.left(head) == expected.bytes.left(head));
        QVERIFY(seen.bytes.right(1000) == expected.bytes.right(1000));
    }

    void testFollowerSeesExistingBytesNewBytesAndTheEnd() {
        QVERIFY(!m_store->create(QStringLiteral("f"), 0));
        m_store->append(QStringLiteral("f"), LogStream::Stdout, "hello ");
        LogFollower follower(m_store.get(), QStringLiteral("f"), 2);
        QSignalSpy ready(&follower, &LogFollower::readyRead);
        QVERIFY(ready.wait(5000)); // queued at construction: existing bytes need no new output
        LogReadResult r;
        QVERIFY(!follower.readNext(1024, &r));
        QCOMPARE(r.chunks.size(), 1);
        QCOMPARE(r.chunks.at(0).data, QByteArray("llo "));
        QCOMPARE(r.chunks.at(0).offset, qint64(2));
        QVERIFY(!follower.atEnd());
        m_store->append(QStringLiteral("f"), LogStream::Stderr, "world");
        QTRY_COMPARE(ready.size(), 2);
        QVERIFY(!follower.readNext(1024, &r));
        QVERIFY(r.chunks.at(0).kind == LogChunk::Kind::Stderr);
        QCOMPARE(r.chunks.at(0).data, QByteArray("world"));
        QVERIFY(!m_store->finish(QStringLiteral("f")));
        QTRY_COMPARE(ready.size(), 3);
        QVERIFY(!follower.readNext(1024, &r));
        QVERIFY(r.chunks.isEmpty());
        QVERIFY(follower.atEnd());
    }

    void testFollowerAcrossThreadsReceivesEveryByteInOrder() {
        QVERIFY(!m_store->create(QStringLiteral("ft"), 0));
        Expected expected;
        QThread* writer = QThread::create([&] {
            QRandomGenerator rng(99);
            for (int i = 0; i < 2000; ++i) {
                const LogStream s = i % 5 == 0 ? LogStream::Stderr : LogStream::Stdout;
                const QByteArray data = randomBytes(rng, 1 + rng.bounded(700));
                m_store->append(QStringLiteral("ft"), s, data);
                expected.add(s, data);
            }
            m_store->finish(QStringLiteral("ft"));
        });
        LogFollower follower(m_store.get(), QStringLiteral("ft"), 0);
        Expected seen;
        connect(&follower, &LogFollower::readyRead, this, [&] {
            for (;;) {
                LogReadResult r;
                if (follower.readNext(8192, &r) || r.chunks.isEmpty())
                    return;
                for (const LogChunk& c : std::as_const(r.chunks))
                    seen.add(c.kind == LogChunk::Kind::Stdout ? LogStream::Stdout
                                                              : LogStream::Stderr,
                             c.data);
            }
        });
        writer->start();
        QTRY_VERIFY_WITH_TIMEOUT(follower.atEnd(), 30000);
        QVERIFY(writer->wait(30000));
        delete writer;
        QCOMPARE(seen.bytes.size(), expected.bytes.size());
        QVERIFY(seen.bytes == expected.bytes);
        QVERIFY(seen.streams == expected.streams);
    }
};

QTEST_GUILESS_MAIN(TestLogStore)
#include "test_log_store.moc"
