// BrokerInput: a workspace-relative broker input is opened beneath the workspace root (never
// through a link) and pinned; the job gets /proc/self/fd/N of that very inode.
#include "agent/npu/BrokerInput.h"
#include "support/ResolverModes.h"
#include "support/TestFiles.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace runbox::npu;
using namespace runbox::testsupport;

class TestBrokerInput final : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_ws;
    int m_root = -1;

private Q_SLOTS:
    void initTestCase_data() { addResolverModeRows(); }
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QDir root(m_dir.path());
        QVERIFY(root.mkpath("ws/data/sub"));
        QVERIFY(root.mkpath("outside"));
        m_ws = QDir(m_dir.path() + "/ws").canonicalPath();
        QFile cfg(m_ws + "/data/cfg.json");
        QVERIFY(cfg.open(QIODevice::WriteOnly) && cfg.write("{}") == 2);
        cfg.close();
        QVERIFY(QFile::link(m_dir.path() + "/outside", m_ws + "/escape"));
        QVERIFY(QFile::link("/etc/passwd", m_ws + "/passwd"));
        QVERIFY(QFile::link("data/sub", m_ws + "/inner"));
        QVERIFY(QFile::link("cfg.json", m_ws + "/data/alias.json"));
        QVERIFY(QFile::link(m_ws + "/nowhere", m_ws + "/dangling"));
        QVERIFY(QFile::link("../..", m_ws + "/data/up"));
        QVERIFY(::mkfifo(QFile::encodeName(m_ws + "/fifo").constData(), 0600) == 0);
        m_root = ::open(QFile::encodeName(m_ws).constData(), O_PATH | O_DIRECTORY | O_CLOEXEC);
        QVERIFY(m_root >= 0);
    }
    void init() { applyResolverModeRow(); }
    void cleanupTestCase() {
        resetResolverMode();
        ::close(m_root);
    }

    void testEntriesInsideArePinned_data() {
        QTest::addColumn<QString>("relative");
        QTest::addColumn<QString>("expected");
        QTest::newRow("file") << "data/cfg.json"
                              << "data/cfg.json";
        QTest::newRow("dot segments") << "./data/./cfg.json"
                                      << "data/cfg.json";
        QTest::newRow("directory, trailing slash") << "data/"
                                                   << "data";
        QTest::newRow("nested directory") << "data/sub"
                                          << "data/sub";
        QTest::newRow("the root itself") << "."
                                         << "";
    }
    void testEntriesInsideArePinned() {
        QFETCH(QString, relative);
        QFETCH(QString, expected);
        QString error;
        const std::optional<BrokerInput> input = BrokerInput::open(m_root, relative, &error);
        QVERIFY2(input, qPrintable(error));
        QCOMPARE(fileIdentity(input->fd()), fileIdentity(m_ws + "/" + expected, false));
        QCOMPARE(input->procPath(), QStringLiteral("/proc/self/fd/%1").arg(input->fd()));
        // The descriptor stays private to the agent until a job clears close-on-exec.
        QVERIFY(::fcntl(input->fd(), F_GETFD) & FD_CLOEXEC);
    }

    void testProcPathReopensThePinnedFile() {
        QString error;
        const std::optional<BrokerInput> input = BrokerInput::open(m_root, "data/cfg.json", &error);
        QVERIFY2(input, qPrintable(error));
        QFile reopened(input->procPath());
        QVERIFY(reopened.open(QIODevice::ReadOnly));
        QCOMPARE(reopened.readAll(), QByteArray("{}"));
    }

    void testRefusedInputs_data() {
        QTest::addColumn<QString>("path");
        QTest::newRow("dotdot") << "../outside/x";
        QTest::newRow("inner-dotdot") << "data/../../outside";
        QTest::newRow("absolute") << "/etc/passwd";
        QTest::newRow("symlink-dir-out") << "escape/x";
        QTest::newRow("symlink-file-out") << "passwd";
        QTest::newRow("symlink-up") << "data/up/outside";
        QTest::newRow("symlink-inside-dir") << "inner/x.txt";
        QTest::newRow("symlink-inside-file") << "data/alias.json";
        QTest::newRow("dangling") << "dangling";
        QTest::newRow("missing") << "new/dir/out.json";
        QTest::newRow("missing-leaf") << "data/out.json";
        QTest::newRow("fifo") << "fifo";
        QTest::newRow("empty") << "";
        QTest::newRow("empty-segment") << "data//cfg.json";
        QTest::newRow("nul") << QString("data/cfg") + QChar(0);
        QTest::newRow("backslash") << "data\\cfg.json";
        QTest::newRow("file-as-dir") << "data/cfg.json/x";
    }
    void testRefusedInputs() {
        QFETCH(QString, path);
        QString error;
        QVERIFY(!BrokerInput::open(m_root, path, &error));
        QVERIFY(!error.isEmpty());
        QVERIFY2(!error.contains(m_ws), qPrintable(error)); // never names a host path
    }
};

QTEST_GUILESS_MAIN(TestBrokerInput)
#include "test_broker_input.moc"
