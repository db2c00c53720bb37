// SpareHomes: homes made ahead of time become a workspace's home only through take(), owned by
// its uid; none is ever handed out twice or under an existing name; leftovers are cleaned.
#include "agent/light/HomeDirectory.h"
#include "agent/light/SpareHomes.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace runbox::light;

class TestLightSpareHomes final : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_rootFd = -1;
    QString m_root;

    QStringList spares() const {
        QStringList out;
        for (const QString& name :
             QDir(m_root).entryList(QDir::Dirs | QDir::Hidden | QDir::NoDotAndDotDot)) {
            if (SpareHomes::isSpareName(QFile::encodeName(name)))
                out << name;
        }
        return out;
    }
    bool waitForSpares(int count) const {
        QDeadlineTimer deadline(10000);
        while (spares().size() < count && !deadline.hasExpired())
            QThread::msleep(5);
        return spares().size() >= count;
    }

private Q_SLOTS:
    void init() {
        QVERIFY(m_dir.isValid());
        m_root = m_dir.filePath(QStringLiteral("root-%1").arg(QTest::currentTestFunction()));
        QString error;
        m_rootFd = HomeDirectory::openRoot(m_root, &error);
        QVERIFY2(m_rootFd >= 0, qPrintable(error));
        QVERIFY2(HomeDirectory::cleanStale(m_rootFd, m_root, &error), qPrintable(error));
    }
    void cleanup() { ::close(m_rootFd); }

    void testSpareNames() {
        QVERIFY(SpareHomes::isSpareName(".spare-0123456789abcdef"));
        QVERIFY(!SpareHomes::isSpareName(".spare-0123456789ABCDEF"));
        QVERIFY(!SpareHomes::isSpareName(".spare-0123456789abcde"));
        QVERIFY(!SpareHomes::isSpareName("0123456789abcdef"));
        QVERIFY(!SpareHomes::isSpareName(".spare-0123456789abcdef/.."));
    }

    void testSparesArePrivateAndBelongToTheAgent() {
        SpareHomes homes(m_rootFd, 3);
        QVERIFY(waitForSpares(3));
        QThread::msleep(50);
        QCOMPARE(spares().size(), 3); // never more than the target
        for (const QString& name : spares()) {
            for (const QString& path :
                 {m_root + QLatin1Char('/') + name,
                  m_root + QLatin1Char('/') + name + QStringLiteral("/.tmp")}) {
                struct stat st {};
                QCOMPARE(::lstat(QFile::encodeName(path).constData(), &st), 0);
                QCOMPARE(st.st_mode & 07777, 0700u);
                QCOMPARE(st.st_uid, ::geteuid());
            }
        }
    }

    void testTakeGivesTheHomeToItsUidAndRefills() {
        if (::geteuid() != 0)
            QSKIP("chown to another uid needs root");
        SpareHomes homes(m_rootFd, 2);
        QVERIFY(waitForSpares(2));
        const QStringList before = spares();
        const int fd = homes.take("00000000000000a1", 45001, 45002);
        QVERIFY(fd >= 0);
        ::close(fd);
        const QString home = m_root + QStringLiteral("/00000000000000a1");
        for (const QString& path : {home, home + QStringLiteral("/.tmp")}) {
            struct stat st {};
            QCOMPARE(::lstat(QFile::encodeName(path).constData(), &st), 0);
            QCOMPARE(st.st_mode & 07777, 0700u);
            QCOMPARE(st.st_uid, 45001u);
            QCOMPARE(st.st_gid, 45002u);
        }
        QCOMPARE(QDir(home).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                 QStringList{QStringLiteral(".tmp")});
        QVERIFY(waitForSpares(2)); // refilled, with a new name
        QCOMPARE(spares().size(), 2);
        int reused = 0;
        for (const QString& name : spares())
            reused += before.contains(name) ? 1 : 0;
        QCOMPARE(reused, 1);
    }

    void testTakeNeverReplacesAnExistingHome() {
        SpareHomes homes(m_rootFd, 1);
        QVERIFY(waitForSpares(1));
        QVERIFY(QDir().mkpath(m_root + QStringLiteral("/00000000000000b2/keep")));
        QCOMPARE(homes.take("00000000000000b2", ::geteuid(), ::getegid()), -1);
        QVERIFY(QFileInfo::exists(m_root + QStringLiteral("/00000000000000b2/keep")));
    }

    void testNoSpareMeansTheCallerMakesTheHome() {
        SpareHomes none(m_rootFd, 0);
        QCOMPARE(none.take("00000000000000c3", ::geteuid(), ::getegid()), -1);
        QVERIFY(!QFileInfo::exists(m_root + QStringLiteral("/00000000000000c3")));
    }

    void testLeftoversAreRemoved() {
        {
            SpareHomes homes(m_rootFd, 2);
            QVERIFY(waitForSpares(2));
        }
        QCOMPARE(spares().size(), 0); // the destructor removed them
        // A crash leaves them behind: start-up cleaning removes them.
        QVERIFY(QDir().mkpath(m_root + QStringLiteral("/.spare-00000000000000d4/.tmp")));
        QString error;
        QVERIFY2(HomeDirectory::cleanStale(m_rootFd, m_root, &error), qPrintable(error));
        QCOMPARE(spares().size(), 0);
    }
};

QTEST_GUILESS_MAIN(TestLightSpareHomes)
#include "test_light_spare_homes.moc"
