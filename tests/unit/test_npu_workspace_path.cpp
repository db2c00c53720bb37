// WorkspacePath: workspace-relative broker inputs never resolve outside the workspace.
#include "agent/npu/WorkspacePath.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace runbox::npu;

class TestNpuWorkspacePath final : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_ws;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QDir root(m_dir.path());
        QVERIFY(root.mkpath("ws/data/sub"));
        QVERIFY(root.mkpath("outside"));
        m_ws = QDir(m_dir.path() + "/ws").canonicalPath();
        QFile(m_ws + "/data/cfg.json").open(QIODevice::WriteOnly);
        QVERIFY(QFile::link(m_dir.path() + "/outside", m_ws + "/escape"));
        QVERIFY(QFile::link("/etc/passwd", m_ws + "/passwd"));
        QVERIFY(QFile::link("data/sub", m_ws + "/inner"));
        QVERIFY(QFile::link(m_ws + "/nowhere", m_ws + "/dangling"));
        QVERIFY(QFile::link("../..", m_ws + "/data/up"));
    }

    void testPathsInsideResolve() {
        QString error;
        QCOMPARE(WorkspacePath::resolveInside(m_ws, "data/cfg.json", &error),
                 m_ws + "/data/cfg.json");
        QCOMPARE(WorkspacePath::resolveInside(m_ws, "./data/./cfg.json", &error),
                 m_ws + "/data/cfg.json");
        QCOMPARE(WorkspacePath::resolveInside(m_ws, "inner/x.txt", &error),
                 m_ws + "/data/sub/x.txt");
        QCOMPARE(WorkspacePath::resolveInside(m_ws, "new/dir/out.json", &error),
                 m_ws + "/new/dir/out.json");
        QCOMPARE(WorkspacePath::resolveInside(m_ws, "data/", &error), m_ws + "/data");
    }

    void testEscapesAreRefused_data() {
        QTest::addColumn<QString>("path");
        QTest::newRow("dotdot") << "../outside/x";
        QTest::newRow("inner-dotdot") << "data/../../outside";
        QTest::newRow("absolute") << "/etc/passwd";
        QTest::newRow("symlink-dir-out") << "escape/x";
        QTest::newRow("symlink-file-out") << "passwd";
        QTest::newRow("symlink-up") << "data/up/outside";
        QTest::newRow("dangling") << "dangling";
        QTest::newRow("empty") << "";
        QTest::newRow("empty-segment") << "data//cfg.json";
        QTest::newRow("nul") << QString("data/cfg") + QChar(0);
        QTest::newRow("file-as-dir") << "data/cfg.json/x";
    }
    void testEscapesAreRefused() {
        QFETCH(QString, path);
        QString error;
        QCOMPARE(WorkspacePath::resolveInside(m_ws, path, &error), QString());
        QVERIFY(!error.isEmpty());
    }

    void testSiblingWithCommonPrefixIsOutside() {
        QVERIFY(!WorkspacePath::isInside("/a/ws", "/a/ws2/x"));
        QVERIFY(WorkspacePath::isInside("/a/ws", "/a/ws/x"));
        QVERIFY(WorkspacePath::isInside("/a/ws", "/a/ws"));
    }
};

QTEST_GUILESS_MAIN(TestNpuWorkspacePath)
#include "test_npu_workspace_path.moc"
