// shared/PrivateFile, the one reader of secret and token files (docs/contracts.md "Processes
// and start-up", "Pool credential"): a 0600 regular file of this user is read, also through a
// symlink; a FIFO is refused at once instead of hanging, and so are a 0640 file, a file of
// another uid (as root) and one past the size bound. (A file swapped between the check and the
// read cannot be, as both go by one descriptor; no test can make that race deterministic.)
#include "shared/PrivateFile.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <fcntl.h>
#include <future>
#include <sys/stat.h>
#include <unistd.h>

using namespace runbox;

namespace {

bool writeFile(const QString& path, const QByteArray& data, mode_t mode) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(data) != data.size())
        return false;
    f.close();
    return ::chmod(QFile::encodeName(path).constData(), mode) == 0;
}

struct Outcome {
    bool ok = false;
    QByteArray contents;
    QString error;
};

Outcome readPrivate(const QString& path) {
    Outcome o;
    o.ok = PrivateFile::read(path, &o.contents, &o.error);
    return o;
}

} // namespace

class TestPrivateFile final : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void testAPrivateFileIsRead() {
        const QString path = m_dir.filePath("token");
        QVERIFY(writeFile(path, "abc\n", 0600));
        const Outcome o = readPrivate(path);
        QVERIFY2(o.ok, qPrintable(o.error));
        QCOMPARE(o.contents, QByteArray("abc\n"));
    }

    void testASymlinkToOwnPrivateFileIsRead() {
        const QString path = m_dir.filePath("linked");
        QVERIFY(writeFile(path, "linked\n", 0600));
        QVERIFY(QFile::link(path, m_dir.filePath("link")));
        const Outcome o = readPrivate(m_dir.filePath("link"));
        QVERIFY2(o.ok, qPrintable(o.error));
        QCOMPARE(o.contents, QByteArray("linked\n"));
    }

    void testAFifoIsRefusedAtOnce() {
        const QString fifo = m_dir.filePath("fifo");
        QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
        // Positive control: a plain open of a FIFO no one writes blocks (the hang it was).
        auto blocked = std::async(std::launch::async, [&] {
            return ::open(QFile::encodeName(fifo).constData(), O_RDONLY | O_CLOEXEC);
        });
        QCOMPARE(blocked.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout);
        const int writer = ::open(QFile::encodeName(fifo).constData(), O_WRONLY | O_NONBLOCK);
        QVERIFY(writer >= 0); // releases the blocked reader
        ::close(blocked.get());
        ::close(writer);

        auto refused = std::async(std::launch::async, [&] { return readPrivate(fifo); });
        if (refused.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
            const int release = ::open(QFile::encodeName(fifo).constData(), O_WRONLY | O_NONBLOCK);
            refused.wait();
            ::close(release);
            QFAIL("reading a FIFO hung");
        }
        const Outcome o = refused.get();
        QVERIFY(!o.ok);
        QVERIFY2(o.error.contains("is not a regular file"), qPrintable(o.error));
    }

    void testAFileOthersMayReadIsRefused() {
        const QString path = m_dir.filePath("group-readable");
        QVERIFY(writeFile(path, "abc\n", 0640));
        const Outcome o = readPrivate(path);
        QVERIFY(!o.ok);
        QVERIFY2(o.error.contains("mode 0640") && o.error.contains("chmod 600"),
                 qPrintable(o.error));
    }

    void testAFileOfAnotherUidIsRefused() {
        if (::geteuid() != 0)
            QSKIP("needs root to give a file to another uid");
        const QString path = m_dir.filePath("nobodys");
        QVERIFY(writeFile(path, "chosen by nobody\n", 0600));
        QVERIFY(readPrivate(path).ok); // positive control: root's own
        QVERIFY(::chown(QFile::encodeName(path).constData(), 65534, 65534) == 0);
        const Outcome o = readPrivate(path);
        QVERIFY(!o.ok);
        QVERIFY2(o.error.contains("owned by uid 65534, not by this user"), qPrintable(o.error));
        // Nor through a link of this user's.
        QVERIFY(QFile::link(path, m_dir.filePath("to-nobodys")));
        QVERIFY(!readPrivate(m_dir.filePath("to-nobodys")).ok);
    }

    void testAFilePastTheBoundIsRefused() {
        const QString path = m_dir.filePath("large");
        QVERIFY(writeFile(path, QByteArray(PrivateFile::kMaxBytes, 'a'), 0600));
        QVERIFY(readPrivate(path).ok); // at the bound: read
        QVERIFY(writeFile(path, QByteArray(PrivateFile::kMaxBytes + 1, 'a'), 0600));
        const Outcome o = readPrivate(path);
        QVERIFY(!o.ok);
        QVERIFY2(o.error.contains("larger than"), qPrintable(o.error));
    }

    void testAMissingFileSaysSo() {
        const Outcome o = readPrivate(m_dir.filePath("missing"));
        QVERIFY(!o.ok);
        QVERIFY2(o.error.contains("No such file"), qPrintable(o.error));
    }
};

QTEST_GUILESS_MAIN(TestPrivateFile)
#include "test_private_file.moc"
