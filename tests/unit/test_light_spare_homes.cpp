// SpareHomes: homes made ahead of time become a workspace's home only through take(), owned by
// its uid; none is ever handed out twice; leftovers are cleaned.
#include "agent/light/HomeDirectory.h"
#include "agent/light/SpareHomes.h"
#include "support/TestFiles.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>
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

    /// Directories in the root named like a home (16 lowercase hex digits) and owned by @p uid:
    /// with the agent's euid, the spares not handed out yet.
    QStringList homesOwnedBy(uid_t uid) const {
        return runbox::testsupport::directoriesOwnedBy(m_root, uid)
            .filter(QRegularExpression(QStringLiteral("^[0-9a-f]{16}$")));
    }
    QStringList spares() const { return homesOwnedBy(::geteuid()); }
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
        QByteArray name;
        const int fd = homes.take(45001, 45002, &name);
        QVERIFY(fd >= 0);
        QVERIFY(before.contains(QString::fromLatin1(name))); // the home keeps the spare's name
        struct stat byFd {};
        QCOMPARE(::fstat(fd, &byFd), 0);
        ::close(fd);
        const QString home = m_root + QLatin1Char('/') + QString::fromLatin1(name);
        for (const QString& path : {home, home + QStringLiteral("/.tmp")}) {
            struct stat st {};
            QCOMPARE(::lstat(QFile::encodeName(path).constData(), &st), 0);
            QCOMPARE(st.st_mode & 07777, 0700u);
            QCOMPARE(st.st_uid, 45001u);
            QCOMPARE(st.st_gid, 45002u);
            if (path == home)
                QCOMPARE(st.st_ino, byFd.st_ino); // the fd is on that very directory
        }
        QCOMPARE(QDir(home).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                 QStringList{QStringLiteral(".tmp")});
        QVERIFY(waitForSpares(2)); // refilled, with a new name
        QCOMPARE(spares().size(), 2);
        QVERIFY(!spares().contains(QString::fromLatin1(name)));
        QCOMPARE(homesOwnedBy(45001), QStringList{QString::fromLatin1(name)});
    }

    void testNoSpareIsHandedOutTwice() {
        if (::geteuid() != 0)
            QSKIP("chown to another uid needs root");
        SpareHomes homes(m_rootFd, 8);
        QVERIFY(waitForSpares(8));
        QSet<QByteArray> names;
        for (uid_t uid = 45010; uid < 45050; ++uid) {
            QByteArray name;
            const int fd = homes.take(uid, uid, &name);
            if (fd < 0)
                continue; // drained faster than the refill: the caller makes the home
            ::close(fd);
            QVERIFY2(!names.contains(name), name.constData());
            names.insert(name);
            QCOMPARE(homesOwnedBy(uid), QStringList{QString::fromLatin1(name)});
        }
        QVERIFY(names.size() >= 8);
    }

    void testNoSpareMeansTheCallerMakesTheHome() {
        SpareHomes none(m_rootFd, 0);
        QByteArray name = "unchanged";
        QCOMPARE(none.take(::geteuid(), ::getegid(), &name), -1);
        QCOMPARE(name, QByteArray("unchanged"));
        QVERIFY(spares().isEmpty());
    }

    void testLeftoversAreRemoved() {
        {
            SpareHomes homes(m_rootFd, 2);
            QVERIFY(waitForSpares(2));
        }
        QCOMPARE(spares().size(), 0); // the destructor removed them
        // A crash leaves them behind (named like homes; an older agent named them .spare-…):
        // start-up cleaning removes both.
        QVERIFY(QDir().mkpath(m_root + QStringLiteral("/00000000000000d4/.tmp")));
        QVERIFY(QDir().mkpath(m_root + QStringLiteral("/.spare-00000000000000d5/.tmp")));
        QString error;
        QVERIFY2(HomeDirectory::cleanStale(m_rootFd, m_root, &error), qPrintable(error));
        QCOMPARE(QDir(m_root).entryList(QDir::Dirs | QDir::Hidden | QDir::NoDotAndDotDot),
                 QStringList{});
    }
};

QTEST_GUILESS_MAIN(TestLightSpareHomes)
#include "test_light_spare_homes.moc"
