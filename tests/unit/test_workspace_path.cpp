#include "agent/workspace/WorkspacePath.h"

#include "agent/http/ErrorStatus.h"

#include <QTest>

using namespace runbox::workspace;

class TestWorkspacePath final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testUrlPathsAreDecodedOnce_data() {
        QTest::addColumn<QByteArray>("raw");
        QTest::addColumn<QByteArray>("relative");
        QTest::addColumn<int>("segments");
        QTest::newRow("plain") << QByteArray("a/b.txt") << QByteArray("a/b.txt") << 2;
        QTest::newRow("space") << QByteArray("my%20file") << QByteArray("my file") << 1;
        QTest::newRow("utf8") << QByteArray("caf%C3%A9") << QByteArray("caf\xc3\xa9") << 1;
        QTest::newRow("literal percent") << QByteArray("100%25") << QByteArray("100%") << 1;
        QTest::newRow("percent not escape") << QByteArray("50%25off") << QByteArray("50%off") << 1;
        QTest::newRow("dots inside name") << QByteArray("..a/b..") << QByteArray("..a/b..") << 2;
        QTest::newRow("hidden") << QByteArray(".env") << QByteArray(".env") << 1;
        QTest::newRow("root") << QByteArray() << QByteArray() << 0;
    }
    void testUrlPathsAreDecodedOnce() {
        QFETCH(QByteArray, raw);
        QFETCH(QByteArray, relative);
        QFETCH(int, segments);
        const auto p = WorkspacePath::fromUrlTail(raw);
        QVERIFY2(p.ok(), qPrintable(p.error().message));
        QCOMPARE(p->toRelative(), relative);
        QCOMPARE(p->segments().size(), segments);
        QCOMPARE(p->isRoot(), segments == 0);
    }

    void testTraversalAndMalformedUrlPathsAreRefused_data() {
        QTest::addColumn<QByteArray>("raw");
        QTest::newRow("%2e%2e") << QByteArray("%2e%2e");
        QTest::newRow("%2E%2e/x") << QByteArray("%2E%2e/x");
        QTest::newRow("a/%2e%2e/b") << QByteArray("a/%2e%2e/b");
        QTest::newRow("%2e") << QByteArray("%2e");
        QTest::newRow("..") << QByteArray("..");
        QTest::newRow(".") << QByteArray(".");
        QTest::newRow("a/../b") << QByteArray("a/../b");
        QTest::newRow("a/./b") << QByteArray("a/./b");
        QTest::newRow("double encoded dot") << QByteArray("%252e%252e");
        QTest::newRow("double encoded slash") << QByteArray("a%252fb");
        QTest::newRow("%2f in segment") << QByteArray("a%2fb");
        QTest::newRow("%2F in segment") << QByteArray("..%2F..%2Fetc");
        QTest::newRow("%5c in segment") << QByteArray("a%5cb");
        QTest::newRow("%5C dots") << QByteArray("..%5C..");
        QTest::newRow("raw backslash") << QByteArray("a\\b");
        QTest::newRow("NUL") << QByteArray("%00");
        QTest::newRow("NUL inside") << QByteArray("a%00.txt");
        QTest::newRow("raw NUL") << QByteArray("a\0b", 3);
        QTest::newRow("//etc/passwd") << QByteArray("//etc/passwd");
        QTest::newRow("/etc/passwd") << QByteArray("/etc/passwd");
        QTest::newRow("%2fetc%2fpasswd") << QByteArray("%2fetc%2fpasswd");
        QTest::newRow("a//b") << QByteArray("a//b");
        QTest::newRow("trailing slash") << QByteArray("a/");
        QTest::newRow("lone percent") << QByteArray("%");
        QTest::newRow("short escape") << QByteArray("a%4");
        QTest::newRow("bad hex") << QByteArray("%zz");
        QTest::newRow("query") << QByteArray("a?b=c");
        QTest::newRow("name 256 bytes") << QByteArray(256, 'n');
        QTest::newRow("name 256 bytes encoded") << QByteArray("%41").repeated(256);
        QByteArray longPath;
        while (longPath.size() < 4096)
            longPath += QByteArray(99, 'p') + '/';
        longPath.chop(1);
        QTest::newRow("path over 4095 bytes") << longPath;
    }
    void testTraversalAndMalformedUrlPathsAreRefused() {
        QFETCH(QByteArray, raw);
        const auto p = WorkspacePath::fromUrlTail(raw);
        QVERIFY2(!p.ok(), raw.constData());
        QCOMPARE(runbox::http::httpStatus(p.error().kind), 400);
        QCOMPARE(p.error().code, QStringLiteral("invalid_path"));
    }

    void testLengthLimitsAreInclusive() {
        // Positive controls for the refusals above: exactly at the limits is fine.
        QVERIFY(WorkspacePath::fromUrlTail(QByteArray(255, 'n')).ok());
        QByteArray path;
        while (path.size() + 100 <= 4095)
            path += QByteArray(99, 'p') + '/';
        path += QByteArray(4095 - path.size(), 'q');
        QCOMPARE(path.size(), 4095);
        const auto p = WorkspacePath::fromUrlTail(path);
        QVERIFY2(p.ok(), qPrintable(p.error().message));
        QCOMPARE(p->toRelative().size(), 4095);
    }

    void testPlainPathsAreNotDecoded() {
        const auto p = WorkspacePath::fromPlain("dir/my%20file");
        // "%20" stays an escape after zero decodes: refused like any leftover escape.
        QVERIFY(!p.ok());
        const auto q = WorkspacePath::fromPlain("dir/my file");
        QVERIFY(q.ok());
        QCOMPARE(q->segments(), (QList<QByteArray>{"dir", "my file"}));
        QVERIFY(WorkspacePath::fromPlain("").ok());
        QVERIFY(WorkspacePath::fromPlain("")->isRoot());
    }

    void testTraversalInPlainPathsIsRefused_data() {
        QTest::addColumn<QByteArray>("path");
        QTest::newRow("..") << QByteArray("..");
        QTest::newRow("../x") << QByteArray("../x");
        QTest::newRow("a/../b") << QByteArray("a/../b");
        QTest::newRow("./a") << QByteArray("./a");
        QTest::newRow("absolute") << QByteArray("/etc/passwd");
        QTest::newRow("//etc/passwd") << QByteArray("//etc/passwd");
        QTest::newRow("a//b") << QByteArray("a//b");
        QTest::newRow("backslash") << QByteArray("..\\..\\etc");
        QTest::newRow("NUL") << QByteArray("a\0b", 3);
        QTest::newRow("%2e%2e") << QByteArray("%2e%2e");
        QTest::newRow("%2f") << QByteArray("a%2fb");
        QTest::newRow("%5c") << QByteArray("a%5cb");
        QTest::newRow("%252e") << QByteArray("%252e");
        QTest::newRow("%00") << QByteArray("%00");
    }
    void testTraversalInPlainPathsIsRefused() {
        QFETCH(QByteArray, path);
        const auto p = WorkspacePath::fromPlain(path);
        QVERIFY(!p.ok());
        QCOMPARE(runbox::http::httpStatus(p.error().kind), 400);
        QCOMPARE(p.error().code, QStringLiteral("invalid_path"));
    }

    void testParentChildAndName() {
        const auto p = WorkspacePath::fromUrlTail("a/b/c.txt");
        QVERIFY(p.ok());
        QCOMPARE(p->name(), QByteArray("c.txt"));
        QCOMPARE(p->parent().toRelative(), QByteArray("a/b"));
        QCOMPARE(p->parent().parent().parent().isRoot(), true);
        QCOMPARE(WorkspacePath().parent().isRoot(), true);
        QCOMPARE(p->parent().child("c.txt"), p.value());
    }
};

QTEST_GUILESS_MAIN(TestWorkspacePath)
#include "test_workspace_path.moc"
