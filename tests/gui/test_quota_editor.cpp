// QuotaEditor: GiB with two decimals; Unlimited means 0; a stored byte count that two decimals
// cannot show is kept exactly until the operator edits it.
#include "console/widgets/QuotaEditor.h"

#include <QSignalSpy>
#include <QTest>

using namespace runbox::console;

class TestQuotaEditor final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testBytesAreEditedInGib() {
        QuotaEditor editor(QuotaValues::field(QStringLiteral("maxOutputBytes")));
        QSignalSpy changed(&editor, &QuotaEditor::valueChanged);
        editor.setValue(qint64(1) << 30);
        QCOMPARE(changed.count(), 0); // loading is not an edit
        editor.setDisplayNumber(2.5);
        QCOMPARE(editor.value(), qint64(2684354560));
        QVERIFY(changed.count() >= 1);
        editor.setUnlimited(true);
        QCOMPARE(editor.value(), 0);
    }

    void testOddByteCountIsKeptExactlyUntilEdited() {
        QuotaEditor editor(QuotaValues::field(QStringLiteral("maxWorkspaceBytes")));
        editor.setValue(1000000007);
        QCOMPARE(editor.value(), qint64(1000000007)); // 0.93 GiB on screen, exact underneath
        editor.setDisplayNumber(0.93);                // the number shown: not a change
        QCOMPARE(editor.value(), qint64(1000000007));
        editor.setDisplayNumber(0.95);
        QCOMPARE(editor.value(), gibToBytes(0.95));
    }

    void testUnlimitedStoredAsZero() {
        QuotaEditor editor(QuotaValues::field(QStringLiteral("maxConcurrentExecutions")));
        editor.setValue(0);
        QVERIFY(editor.isUnlimited());
        QCOMPARE(editor.value(), 0);
        editor.setDisplayNumber(8);
        QCOMPARE(editor.value(), 8);
    }

    void testTimeoutsAreEditedInSeconds() {
        QuotaEditor editor(QuotaValues::field(QStringLiteral("defaultExecutionTimeoutMs")));
        editor.setValue(7200000);
        editor.setDisplayNumber(90);
        QCOMPARE(editor.value(), 90000);
    }

    void testCpuIsEditedInCoresAndStoredAsMillicores() {
        QuotaEditor editor(QuotaValues::field(QStringLiteral("maxCpuMillicores")));
        editor.setValue(0);
        QVERIFY(editor.isUnlimited());
        editor.setDisplayNumber(1.5);
        QCOMPARE(editor.value(), 1500);
        editor.setDisplayNumber(0.25);
        QCOMPARE(editor.value(), 250);
        editor.setValue(2000);
        QCOMPARE(editor.value(), 2000);
        QCOMPARE(QuotaValues::field(QStringLiteral("maxCpuMillicores")).unit,
                 QuotaField::Unit::Millicores);
    }
};

QTEST_MAIN(TestQuotaEditor)
#include "test_quota_editor.moc"
