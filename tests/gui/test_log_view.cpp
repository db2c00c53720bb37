// LogView: stdout and stderr drawn differently, memory bounded (old lines dropped and said so,
// unbroken lines split), UTF-8 split across frames joined, pause holds output, find wraps, save.
#include "console/widgets/LogView.h"

#include <QFile>
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>

using runbox::console::LogView;

namespace {
QColor colorOfBlock(const LogView& view, const QString& text) {
    const QTextDocument* doc = view.editor()->document();
    for (QTextBlock b = doc->begin(); b.isValid(); b = b.next())
        if (b.text() == text && !b.begin().atEnd())
            return b.begin().fragment().charFormat().foreground().color();
    return {};
}
} // namespace

class TestLogView final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testStreamsAreDistinguished() {
        LogView view;
        view.appendOutput(LogView::Stdout, "out line\n");
        view.appendOutput(LogView::Stderr, "err line\n");
        view.appendNote(QStringLiteral("note line"));
        QTRY_VERIFY(view.plainText().contains(QStringLiteral("note line")));
        const QColor out = colorOfBlock(view, QStringLiteral("out line"));
        const QColor err = colorOfBlock(view, QStringLiteral("err line"));
        QVERIFY(out.isValid() && err.isValid());
        QVERIFY(out != err);
    }

    void testMemoryIsBounded() {
        LogView view;
        view.setMaxChars(20000);
        const QByteArray line = QByteArray(99, 'x') + '\n';
        for (int i = 0; i < 2000; ++i) // 200 000 characters
            view.appendOutput(LogView::Stdout, line);
        view.appendOutput(LogView::Stdout, "the last line\n");
        QTRY_VERIFY(view.plainText().contains(QStringLiteral("the last line")));
        QVERIFY2(view.editor()->document()->characterCount() <= 20000 + 200,
                 qPrintable(QString::number(view.editor()->document()->characterCount())));
        QVERIFY(view.droppedChars() >= 180000);
    }

    void testUnbrokenLinesAreSplit() {
        LogView view;
        view.appendOutput(LogView::Stdout, QByteArray(40000, 'y'));
        QTRY_VERIFY(view.editor()->document()->blockCount() >= 3);
        for (QTextBlock b = view.editor()->document()->begin(); b.isValid(); b = b.next())
            QVERIFY(b.length() <= 16 * 1024 + 1);
    }

    void testUtf8SplitAcrossFramesIsJoined() {
        LogView view;
        const QByteArray text = QStringLiteral("größe 字\n").toUtf8();
        const qsizetype cut = text.indexOf("\xc3") + 1; // inside the two bytes of 'ö'
        view.appendOutput(LogView::Stdout, text.left(cut));
        view.appendOutput(LogView::Stdout, text.mid(cut));
        QTRY_VERIFY(view.plainText().contains(QStringLiteral("größe 字")));
    }

    void testPauseHoldsOutputUntilResumed() {
        LogView view;
        view.setPaused(true);
        view.appendOutput(LogView::Stdout, "held\n");
        QTest::qWait(150); // several flush periods
        QVERIFY(!view.plainText().contains(QStringLiteral("held")));
        view.setPaused(false);
        QVERIFY(view.plainText().contains(QStringLiteral("held")));
    }

    void testFindWrapsAndSaveWritesTheText() {
        LogView view;
        view.appendOutput(LogView::Stdout, "alpha\nneedle one\nbeta\nneedle two\n");
        QTRY_VERIFY(view.plainText().contains(QStringLiteral("needle two")));
        QVERIFY(view.find(QStringLiteral("needle")));
        QVERIFY(!view.isFollowing());
        QVERIFY(view.find(QStringLiteral("needle")));
        QVERIFY(view.find(QStringLiteral("needle"))); // wraps around to the first match
        QCOMPARE(view.editor()->textCursor().block().text(), QStringLiteral("needle one"));
        QVERIFY(!view.find(QStringLiteral("absent")));
        QTemporaryDir dir;
        QString error;
        QVERIFY2(view.saveTo(dir.filePath("log.txt"), &error), qPrintable(error));
        QFile f(dir.filePath("log.txt"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readAll().contains("needle two"));
    }
};

QTEST_MAIN(TestLogView)
#include "test_log_view.moc"
