// QuotaValues and the GiB conversion (GiB = 2^30 bytes): exact round trips, changed
// fields only, the agent's validation rules, the audit line.
#include "console/api/QuotaValues.h"

#include <QJsonObject>
#include <QTest>

using namespace runbox::console;

class TestQuotaValues final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testGibConversion() {
        QCOMPARE(gibToBytes(1.0), qint64(1073741824));
        QCOMPARE(gibToBytes(2.5), qint64(2684354560));
        QCOMPARE(gibToBytes(0.01), qint64(10737418)); // 10737418.24 rounds to the nearest byte
        QCOMPARE(bytesToGib(qint64(10) << 30), 10.0);
        QVERIFY(isExactInGib(qint64(10) << 30));
        QVERIFY(isExactInGib(gibToBytes(1.25)));
        QVERIFY(!isExactInGib(1000000000)); // 0.93132… GiB
    }

    void testReadsTopLevelOrNestedAndKeepsUnknownFields() {
        const QuotaValues top = QuotaValues::fromJson({{"maxOutputBytes", 1073741824.0},
                                                       {"someFutureLimit", 7},
                                                       {"lastChange", QJsonObject{}}});
        QVERIFY(top.has(QStringLiteral("maxOutputBytes")));
        QCOMPARE(top.value(QStringLiteral("someFutureLimit")), 7);
        QCOMPARE(top.names().first(), QStringLiteral("maxOutputBytes"));
        QVERIFY(!top.has(QStringLiteral("lastChange")));
        const QuotaValues nested =
            QuotaValues::fromJson({{"quotas", QJsonObject{{"maxWorkspaceBytes", 5.0}}}});
        QCOMPARE(nested.value(QStringLiteral("maxWorkspaceBytes")), 5);
    }

    void testChangesContainOnlyEditedFields() {
        const QuotaValues base = QuotaValues::fromJson(
            {{"maxOutputBytes", 1073741824.0}, {"maxWorkspaceBytes", 10737418240.0}});
        QuotaValues edited = base;
        QVERIFY(edited.changesFrom(base).isEmpty());
        edited.setValue(QStringLiteral("maxOutputBytes"), 0);
        QCOMPARE(edited.changesFrom(base), (QJsonObject{{"maxOutputBytes", 0}}));
    }

    void testValidationFollowsTheAgent() {
        QuotaValues v = QuotaValues::fromJson({{"defaultExecutionTimeoutMs", 7200000.0},
                                               {"maxExecutionTimeoutMs", 86400000.0},
                                               {"maxWorkspaceBytes", 1.0}});
        QVERIFY(v.validate().isEmpty());
        v.setValue(QStringLiteral("defaultExecutionTimeoutMs"), 90000000);
        QCOMPARE(v.validate().size(), 1);
        v.setValue(QStringLiteral("defaultExecutionTimeoutMs"), 0); // unlimited default under a max
        QCOMPARE(v.validate().size(), 1);
        v.setValue(QStringLiteral("maxExecutionTimeoutMs"), 0); // both unlimited: fine
        QVERIFY(v.validate().isEmpty());
        v.setValue(QStringLiteral("maxWorkspaceBytes"), -1);
        QCOMPARE(v.validate().size(), 1);
        v.setValue(QStringLiteral("maxWorkspaceBytes"), (qint64(1) << 50) + 1);
        QCOMPARE(v.validate().size(), 1);
    }

    void testLastChangeLine() {
        QVERIFY(QuotaValues::lastChangeText({}).isEmpty());
        const QString line = QuotaValues::lastChangeText(
            {{"lastChange", QJsonObject{{"key", "quota.maxOutputBytes"},
                                        {"before", 1073741824.0},
                                        {"after", 0},
                                        {"tokenId", "agent"},
                                        {"at", "2026-11-30T00:00:00.000Z"}}}});
        QVERIFY2(line.contains(QStringLiteral("Retained output")), qPrintable(line));
        QVERIFY2(line.contains(QStringLiteral("1.00 GiB")), qPrintable(line));
        QVERIFY2(line.contains(QStringLiteral("unlimited")), qPrintable(line));
        QVERIFY2(line.contains(QStringLiteral("agent")), qPrintable(line));
    }
};

QTEST_MAIN(TestQuotaValues)
#include "test_quota_values.moc"
