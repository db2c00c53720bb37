// The pool's best-effort cache (docs/contracts.md "Pool cache"): what it writes (0600 in a 0700
// directory, a fingerprint of the token, never the token), when an entry may be used (fresh,
// and recorded for the URL, pin and token discovery gives now), that every corrupted,
// truncated or hand-edited file or entry is a miss and never an error, and that concurrent
// writers merge under the lock.
#include "shared/PoolCache.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <sys/stat.h>

#include <functional>
#include <memory>
#include <vector>

using namespace runbox;

namespace {

const QByteArray kToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const QByteArray kPin = QByteArray(32, '\x5a');

PoolCacheEntry entry(const QString& name, qint64 free = 7,
                     const QDateTime& at = QDateTime::currentDateTimeUtc()) {
    return {name,
            QStringLiteral("https://10.0.0.5:4312"),
            PoolCache::pinHex(kPin),
            PoolCache::tokenFingerprint(kToken),
            free,
            10,
            at};
}

QJsonObject entryJson(const QString& name) {
    return {{"name", name},
            {"url", "https://10.0.0.5:4312"},
            {"fingerprint", PoolCache::pinHex(kPin)},
            {"tokenFingerprint", PoolCache::tokenFingerprint(kToken)},
            {"free", 7},
            {"capacity", 10},
            {"seenAt", QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)}};
}

QByteArray fileJson(const QJsonArray& hosts, const QString& pool = QStringLiteral("p1")) {
    return QJsonDocument(QJsonObject{{"version", 1}, {"pool", pool}, {"hosts", hosts}}).toJson();
}

mode_t modeOf(const QString& path) {
    struct stat st {};
    return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

} // namespace

class PoolCacheFileTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString path() const { return m_dir.filePath("pools/p1/cache.json"); }

    void write(const QByteArray& bytes,
               QFileDevice::Permissions perms = QFileDevice::ReadOwner | QFileDevice::WriteOwner) {
        QDir().mkpath(QFileInfo(path()).absolutePath());
        QFile f(path());
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(bytes);
        f.close();
        QVERIFY(f.setPermissions(perms));
    }

private Q_SLOTS:
    void init() {
        QDir(m_dir.path()).removeRecursively();
        QDir().mkpath(m_dir.path());
    }

    void testDefaultPathStaysInThePoolsDirectory() {
        qputenv("XDG_CACHE_HOME", m_dir.path().toUtf8());
        QCOMPARE(PoolCache::defaultPath("p1"), m_dir.path() + "/runbox/pools/p1/cache.json");
        for (const char* bad : {"", "..", "../x", "a/b", "a.b", "x\ny"})
            QVERIFY2(PoolCache::defaultPath(bad).isEmpty(), bad);
        PoolCache refused("../x", path()); // an invalid pool name never reads nor writes
        refused.record(entry("h1"));
        QVERIFY(!refused.save().isEmpty());
        QVERIFY(!QFileInfo::exists(path()));
    }

    void testSavedFileIsPrivateAndHoldsNoToken() {
        PoolCache cache("p1", path());
        QCOMPARE(cache.load(), 0); // no file: a miss
        cache.record(entry("h1"));
        cache.record(entry("h2", 3));
        QCOMPARE(cache.save(), QString());
        QCOMPARE(modeOf(path()), mode_t(0600));
        QCOMPARE(modeOf(QFileInfo(path()).absolutePath()), mode_t(0700));
        QFile f(path());
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        QVERIFY2(!bytes.contains(kToken), bytes.constData());
        QVERIFY(!bytes.contains(kToken.left(32))); // nor a large part of it
        QVERIFY(bytes.contains(PoolCache::tokenFingerprint(kToken).toLatin1()));
        QCOMPARE(PoolCache::tokenFingerprint(kToken).size(), 16);
        PoolCache again("p1", path());
        QCOMPARE(again.load(), 2);
        const PoolCacheEntry* h2 = again.usable("h2", "https://10.0.0.5:4312", kPin, kToken);
        QVERIFY(h2);
        QCOMPARE(h2->free, 3);
        QCOMPARE(h2->capacity, 10);
    }

    /// A symlink planted as the cache (say to a token file) is replaced, never written through;
    /// a FIFO there neither hangs the load nor the save.
    void testALinkOrFifoAsTheCacheIsReplacedNotWrittenThrough() {
        const QString victim = m_dir.filePath("victim.token");
        QFile v(victim);
        QVERIFY(v.open(QIODevice::WriteOnly) && v.write("secret-token") > 0);
        v.close();
        QVERIFY(QDir().mkpath(QFileInfo(path()).absolutePath()));
        QVERIFY(QFile::link(victim, path()));
        PoolCache cache("p1", path());
        QCOMPARE(cache.load(), 0); // what the link shows is no cache
        cache.record(entry("h1"));
        QCOMPARE(cache.save(), QString());
        QVERIFY(!QFileInfo(path()).isSymLink());
        QVERIFY(v.open(QIODevice::ReadOnly));
        QCOMPARE(v.readAll(), QByteArray("secret-token"));
        v.close();
        QVERIFY(QFile::remove(path()));
        QVERIFY(::mkfifo(QFile::encodeName(path()).constData(), 0600) == 0);
        PoolCache fifo("p1", path());
        QCOMPARE(fifo.load(), 0);
        fifo.record(entry("h2"));
        QCOMPARE(fifo.save(), QString());
        PoolCache again("p1", path());
        QCOMPARE(again.load(), 1); // the FIFO replaced by a cache of h2 alone
    }

    void testAnEntryIsUsedOnlyForWhatDiscoverySaysNow() {
        PoolCache cache("p1", path());
        const QDateTime now = QDateTime::currentDateTimeUtc();
        cache.record(entry("h1", 7, now.addSecs(-60)));
        const QString url = "https://10.0.0.5:4312";
        QVERIFY(cache.usable("h1", url, kPin, kToken, now));
        QVERIFY(!cache.usable("h2", url, kPin, kToken, now));
        QVERIFY(!cache.usable("h1", "https://10.0.0.6:4312", kPin, kToken, now)); // another URL
        QVERIFY(!cache.usable("h1", url, QByteArray(32, 'x'), kToken, now));      // another pin
        QVERIFY(!cache.usable("h1", url, {}, kToken, now));                       // no pin now
        QVERIFY(!cache.usable("h1", url, kPin, "ff" + kToken.mid(2), now));       // another token
        QVERIFY(cache.usable("h1", url, kPin, kToken, now.addSecs(14 * 60)));
        QVERIFY(!cache.usable("h1", url, kPin, kToken, now.addSecs(15 * 60))); // stale: 16 min
        cache.record(entry("h3", 7, now.addSecs(10 * 60)));
        QVERIFY(!cache.usable("h3", url, kPin, kToken, now)); // seen in the future: hand-made
    }

    void testMalformedFilesAreMisses_data() {
        QTest::addColumn<QByteArray>("bytes");
        const QByteArray good = fileJson({entryJson("h1"), entryJson("h2")});
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("garbage") << QByteArray("\x00\xff{{not json", 12); // NUL and 0xFF included
        QTest::newRow("truncated") << good.left(good.size() / 2);
        QTest::newRow("array") << QByteArray("[1,2,3]");
        QTest::newRow("no version") << QByteArray(R"({"pool":"p1","hosts":[]})");
        QTest::newRow("version 2")
            << fileJson({entryJson("h1")}).replace("\"version\": 1", "\"version\": 2");
        QTest::newRow("version string")
            << fileJson({entryJson("h1")}).replace("\"version\": 1", "\"version\": \"1\"");
        QTest::newRow("other pool") << fileJson({entryJson("h1")}, "p2");
        QTest::newRow("hosts object") << QByteArray(R"({"version":1,"pool":"p1","hosts":{}})");
        QTest::newRow("huge file") << QByteArray(PoolCache::kMaxBytes + 1, ' ');
    }

    void testMalformedFilesAreMisses() {
        QFETCH(QByteArray, bytes);
        write(bytes);
        PoolCache cache("p1", path());
        QString why;
        QCOMPARE(cache.load(&why), 0);
        QVERIFY(!why.isEmpty());
        QVERIFY(cache.entries().isEmpty());
        // A save over it writes a good file again.
        cache.record(entry("h9"));
        QCOMPARE(cache.save(), QString());
        PoolCache again("p1", path());
        QCOMPARE(again.load(), 1);
    }

    void testFileOthersMayReadIsAMiss() {
        write(fileJson({entryJson("h1")}),
              QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadOther);
        PoolCache cache("p1", path());
        QString why;
        QCOMPARE(cache.load(&why), 0);
        QVERIFY2(why.contains("chmod 600"), qPrintable(why));
        QDir().mkpath(path() + ".d"); // a directory where the file should be: a miss too
        PoolCache dir("p1", path() + ".d");
        QCOMPARE(dir.load(), 0);
    }

    void testHandEditedEntriesAreDropped_data() {
        QTest::addColumn<QString>("member");
        QTest::addColumn<QJsonValue>("value");
        QTest::newRow("extra member") << "note" << QJsonValue("hi");
        QTest::newRow("name number") << "name" << QJsonValue(5);
        QTest::newRow("name with dot") << "name" << QJsonValue("h.1");
        QTest::newRow("name traversal") << "name" << QJsonValue("../h1");
        QTest::newRow("url number") << "url" << QJsonValue(1);
        QTest::newRow("url ftp") << "url" << QJsonValue("ftp://10.0.0.5/");
        QTest::newRow("url empty") << "url" << QJsonValue("");
        QTest::newRow("fingerprint upper") << "fingerprint" << QJsonValue(QString(64, 'A'));
        QTest::newRow("fingerprint short") << "fingerprint" << QJsonValue("abcd");
        QTest::newRow("the token itself") << "tokenFingerprint" << QJsonValue(QString(kToken));
        QTest::newRow("free negative") << "free" << QJsonValue(-5);
        QTest::newRow("free minus one") << "free" << QJsonValue(-1);
        QTest::newRow("free huge") << "free" << QJsonValue(1e300);
        QTest::newRow("free over capacity") << "free" << QJsonValue(11);
        QTest::newRow("free fraction") << "free" << QJsonValue(1.5);
        QTest::newRow("free string") << "free" << QJsonValue("7");
        QTest::newRow("free null with capacity") << "free" << QJsonValue();
        QTest::newRow("capacity huge") << "capacity" << QJsonValue(1e18);
        QTest::newRow("capacity negative") << "capacity" << QJsonValue(-10);
        QTest::newRow("seenAt words") << "seenAt" << QJsonValue("yesterday");
        QTest::newRow("seenAt local") << "seenAt" << QJsonValue("2026-12-07T10:00:00");
        QTest::newRow("seenAt number") << "seenAt" << QJsonValue(1765100000);
        QTest::newRow("no seenAt") << "-seenAt" << QJsonValue();
    }

    void testHandEditedEntriesAreDropped() {
        QFETCH(QString, member);
        QFETCH(QJsonValue, value);
        QJsonObject bad = entryJson("h2");
        if (member.startsWith('-'))
            bad.remove(member.mid(1));
        else
            bad.insert(member, value);
        write(fileJson({entryJson("h1"), bad, QJsonValue("h3"), QJsonValue()}));
        PoolCache cache("p1", path());
        QCOMPARE(cache.load(), 1); // the good one kept, the edited one and the junk dropped
        QCOMPARE(cache.entries().value(0).name, QStringLiteral("h1"));
    }

    void testDuplicateEntryKeepsTheFirst() {
        QJsonObject second = entryJson("h1");
        second.insert("free", 1);
        write(fileJson({entryJson("h1"), second}));
        PoolCache cache("p1", path());
        QCOMPARE(cache.load(), 1);
        QCOMPARE(cache.entries().value(0).free, 7);
    }

    void testNoLimitHostRoundTrips() {
        PoolCache cache("p1", path());
        PoolCacheEntry e = entry("h1");
        e.free = -1;
        e.capacity = 0;
        cache.record(e);
        QCOMPARE(cache.save(), QString());
        PoolCache again("p1", path());
        QCOMPARE(again.load(), 1);
        QCOMPARE(again.entries().value(0).free, -1);
    }

    void testMergeKeepsTheNewerAndPrunesOnlyTheOlder() {
        const QDateTime now = QDateTime::currentDateTimeUtc();
        PoolCache a("p1", path()), b("p1", path());
        a.record(entry("h1", 5, now));
        a.record(entry("h2", 5, now.addSecs(-30)));
        QCOMPARE(a.save(), QString());
        b.load();
        b.record(entry("h1", 9, now.addSecs(-10))); // older than what a wrote: loses
        b.record(entry("h3", 9, now));
        QCOMPARE(b.save(), QString());
        PoolCache c("p1", path());
        QCOMPARE(c.load(), 3);
        QCOMPARE(c.usable("h1", "https://10.0.0.5:4312", kPin, kToken)->free, 5);
        // c prunes h2 and h3; meanwhile another writer saw h3 again (after c's prune): kept.
        c.prune("h2");
        c.prune("h3");
        c.prune("h7"); // never held: nothing to do
        PoolCache d("p1", path());
        d.load();
        d.record(entry("h3", 4, now.addSecs(30)));
        QCOMPARE(d.save(), QString());
        QCOMPARE(c.save(), QString());
        PoolCache e("p1", path());
        QCOMPARE(e.load(), 2);
        QVERIFY(!e.usable("h2", "https://10.0.0.5:4312", kPin, kToken));
        QVERIFY(e.usable("h3", "https://10.0.0.5:4312", kPin, kToken));
        e.pruneAllBut({"h3"});
        QCOMPARE(e.save(), QString());
        PoolCache f("p1", path());
        QCOMPARE(f.load(), 1);
    }

    void testConcurrentWritersMerge() {
        // Eight writers at once, each with its own cache object (its own descriptors, its own
        // lock), each writing its host several times: every host ends up in the file.
        constexpr int kWriters = 8;
        std::vector<std::unique_ptr<QThread>> threads;
        QAtomicInt failures = 0;
        for (int w = 0; w < kWriters; ++w)
            threads.emplace_back(QThread::create([this, w, &failures] {
                for (int round = 0; round < 10; ++round) {
                    PoolCache cache("p1", path());
                    cache.load();
                    cache.record(entry(QStringLiteral("w%1").arg(w), round));
                    if (!cache.save().isEmpty())
                        failures.fetchAndAddRelaxed(1);
                }
            }));
        for (auto& t : threads)
            t->start();
        for (auto& t : threads)
            QVERIFY(t->wait(60000));
        QCOMPARE(failures.loadRelaxed(), 0);
        PoolCache cache("p1", path());
        QCOMPARE(cache.load(), kWriters);
        for (const PoolCacheEntry& e : cache.entries())
            QCOMPARE(e.free, 9); // each writer's last
        QCOMPARE(modeOf(path()), mode_t(0600));
        const QStringList left = QDir(QFileInfo(path()).absolutePath()).entryList(QDir::Files);
        QCOMPARE(left, QStringList({"cache.json", "cache.json.lock"})); // no temporary left
    }
};

QTEST_GUILESS_MAIN(PoolCacheFileTest)
#include "test_pool_cache_file.moc"
