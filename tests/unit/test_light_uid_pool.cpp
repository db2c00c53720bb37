// UidPool: range, exclusions (passwd, group, live processes), FIFO reuse, quarantine, threads.
#include "agent/light/UidPool.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <set>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace runbox::light;

class TestLightUidPool final : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    UidPool::Config config(uid_t first, std::uint32_t count) {
        UidPool::Config c;
        c.first = first;
        c.count = count;
        c.passwdPath = m_dir.filePath(QStringLiteral("passwd"));
        c.groupPath = m_dir.filePath(QStringLiteral("group"));
        return c;
    }

    void writeFile(const QString& name, const QByteArray& content) {
        QFile file(m_dir.filePath(name));
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(content);
    }

private Q_SLOTS:
    void init() {
        writeFile(QStringLiteral("passwd"),
                  "root:x:0:0::/root:/bin/sh\nsvc:x:40002:40002::/:/bin/false\n");
        writeFile(QStringLiteral("group"), "root:x:0:\nteam:x:40004:\n");
    }

    void testAccountUidsAndGidsAreSkipped() {
        UidPool pool(config(40000, 6));
        QVERIFY(pool.error().isEmpty());
        std::set<uid_t> handed;
        while (auto uid = pool.acquire())
            handed.insert(*uid);
        QCOMPARE(handed, (std::set<uid_t>{40000, 40001, 40003, 40005}));
        QCOMPARE(pool.stats().reserved, 2u);
    }

    void testUidHeldByAProcessAtStartIsSkipped() {
        if (::geteuid() != 0)
            QSKIP("needs root to start a process under another uid");
        int ready[2];
        QCOMPARE(::pipe(ready), 0);
        const pid_t child = ::fork();
        if (child == 0) {
            ::close(ready[0]);
            if (::setresgid(40011, 40011, 40011) != 0 || ::setresuid(40011, 40011, 40011) != 0)
                ::_exit(1);
            [[maybe_unused]] const ssize_t sent = ::write(ready[1], "r", 1);
            ::pause();
            ::_exit(0);
        }
        ::close(ready[1]);
        char byte;
        QCOMPARE(::read(ready[0], &byte, 1), 1);
        ::close(ready[0]);
        UidPool pool(config(40010, 3));
        ::kill(child, SIGKILL);
        ::waitpid(child, nullptr, 0);
        std::set<uid_t> handed;
        while (auto uid = pool.acquire())
            handed.insert(*uid);
        QCOMPARE(handed, (std::set<uid_t>{40010, 40012})); // positive: the rest is handed out
    }

    void testReleasedUidsComeBackLast() {
        UidPool pool(config(41000, 3));
        const uid_t a = *pool.acquire();
        QCOMPARE(a, 41000u);
        QVERIFY(pool.release(a));
        QVERIFY(!pool.release(a)); // not in use any more: nothing changes
        QCOMPARE(*pool.acquire(), 41001u);
        QCOMPARE(*pool.acquire(), 41002u);
        QCOMPARE(*pool.acquire(), 41000u);
        QVERIFY(!pool.acquire());
    }

    void testQuarantinedUidIsNeverHandedOut() {
        UidPool pool(config(42000, 2));
        const uid_t a = *pool.acquire();
        pool.quarantine(a, QStringLiteral("processes survived"));
        QVERIFY(!pool.release(a));
        QVERIFY(pool.isQuarantined(a));
        QCOMPARE(pool.quarantineReason(a), QStringLiteral("processes survived"));
        QCOMPARE(*pool.acquire(), 42001u); // positive control: the pool still works
        QVERIFY(!pool.acquire());
        QCOMPARE(pool.stats().quarantined, 1u);
    }

    void testInvalidRangeLeavesPoolEmpty() {
        UidPool low(config(0, 10));
        QVERIFY(!low.error().isEmpty());
        QVERIFY(!low.acquire());
        UidPool wraps(config(4294967000u, 1000));
        QVERIFY(!wraps.error().isEmpty());
    }

    void testConcurrentAcquireNeverHandsOutTwice() {
        UidPool pool(config(43000, 4000));
        std::vector<std::vector<uid_t>> got(8);
        std::vector<std::thread> threads;
        for (int t = 0; t < 8; ++t) {
            threads.emplace_back([&pool, &got, t] {
                for (int i = 0; i < 600; ++i) {
                    if (auto uid = pool.acquire())
                        got[t].push_back(*uid);
                    if (i % 3 == 0 && !got[t].empty()) {
                        pool.release(got[t].back());
                        got[t].pop_back();
                    }
                }
            });
        }
        for (auto& thread : threads)
            thread.join();
        std::set<uid_t> all;
        std::size_t total = 0;
        for (const auto& list : got) {
            total += list.size();
            all.insert(list.begin(), list.end());
        }
        QCOMPARE(all.size(), total);
        QCOMPARE(pool.stats().inUse, static_cast<std::uint32_t>(total));
    }
};

QTEST_GUILESS_MAIN(TestLightUidPool)
#include "test_light_uid_pool.moc"
