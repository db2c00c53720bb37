// cli/Units: sizes (binary units, unlimited), durations, and their display.
#include "cli/Units.h"

#include <QTest>

using namespace runbox::cli;

class TestCliUnits final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testParsesSizes_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("bytes");
        QTest::newRow("GiB") << "20GiB" << (qint64(20) << 30);
        QTest::newRow("MiB") << "512MiB" << (qint64(512) << 20);
        QTest::newRow("KiB lower case") << "64kib" << qint64(65536);
        QTest::newRow("TiB") << "2TiB" << (qint64(2) << 40);
        QTest::newRow("space before unit") << "1 GiB" << (qint64(1) << 30);
        QTest::newRow("fraction") << "1.5GiB" << (qint64(3) << 29);
        QTest::newRow("bytes") << "4096" << qint64(4096);
        QTest::newRow("B suffix") << "4096B" << qint64(4096);
        QTest::newRow("unlimited") << "unlimited" << qint64(0);
        QTest::newRow("Unlimited") << " Unlimited " << qint64(0);
        QTest::newRow("zero") << "0" << qint64(0);
    }
    void testParsesSizes() {
        QFETCH(QString, text);
        QFETCH(qint64, bytes);
        QString error;
        const auto v = parseBytes(text, &error);
        QVERIFY2(v.has_value(), qPrintable(error));
        QCOMPARE(*v, bytes);
    }

    void testRefusesBadSizes_data() {
        QTest::addColumn<QString>("text");
        for (const char* bad : {"", "GiB", "-1GiB", "20GB", "20G", "1.5", "0.3KiB", "1e9",
                                "9999999999TiB", "12 34", "0x10", "unlimited!"})
            QTest::newRow(bad) << QString::fromLatin1(bad);
    }
    void testRefusesBadSizes() {
        QFETCH(QString, text);
        QString error;
        QVERIFY(!parseBytes(text, &error).has_value());
        QVERIFY(!error.isEmpty());
    }

    void testParsesDurations_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("ms");
        QTest::newRow("hours") << "2h" << qint64(7200000);
        QTest::newRow("minutes") << "15m" << qint64(900000);
        QTest::newRow("seconds") << "30s" << qint64(30000);
        QTest::newRow("ms") << "500ms" << qint64(500);
        QTest::newRow("compound") << "1h30m" << qint64(5400000);
        QTest::newRow("fraction") << "1.5s" << qint64(1500);
        QTest::newRow("bare ms") << "2500" << qint64(2500);
        QTest::newRow("unlimited") << "unlimited" << qint64(0);
    }
    void testParsesDurations() {
        QFETCH(QString, text);
        QFETCH(qint64, ms);
        QString error;
        const auto v = parseDurationMs(text, &error);
        QVERIFY2(v.has_value(), qPrintable(error));
        QCOMPARE(*v, ms);
    }

    void testRefusesBadDurations_data() {
        QTest::addColumn<QString>("text");
        for (const char* bad : {"", "h", "5x", "-2h", "2h-", "1.0005s", "2 h", "h2", "1d"})
            QTest::newRow(bad) << QString::fromLatin1(bad);
    }
    void testRefusesBadDurations() {
        QFETCH(QString, text);
        QString error;
        QVERIFY(!parseDurationMs(text, &error).has_value());
        QVERIFY(!error.isEmpty());
    }

    void testFormatsSizesAsGiBWithTwoDecimals() {
        QCOMPARE(formatGiB(0), QStringLiteral("unlimited"));
        QCOMPARE(formatGiB(qint64(20) << 30), QStringLiteral("20.00 GiB"));
        QCOMPARE(formatGiB(qint64(512) << 20), QStringLiteral("0.50 GiB"));
        QCOMPARE(formatGiB(1), QStringLiteral("0.00 GiB"));
    }

    void testFormatsDurations() {
        QCOMPARE(formatDurationMs(0), QStringLiteral("unlimited"));
        QCOMPARE(formatDurationMs(7200000), QStringLiteral("2h"));
        QCOMPARE(formatDurationMs(5400000), QStringLiteral("1h 30m"));
        QCOMPARE(formatDurationMs(45000), QStringLiteral("45s"));
        QCOMPARE(formatDurationMs(1500), QStringLiteral("1500ms"));
        // Measured amounts: 0 is zero, not unlimited (`runbox ps -l` showed CPU-SYS "unlimited"
        // for a run that used 0 ms of system time, and PEAK-MEM "0.00 GiB" for 864 KiB).
        QCOMPARE(formatCpuMs(0), QStringLiteral("0ms"));
        QCOMPARE(formatCpuMs(950), QStringLiteral("950ms"));
        QCOMPARE(formatCpuMs(36100), QStringLiteral("36.1s"));
        QCOMPARE(formatBytesUsed(0), QStringLiteral("0 B"));
        QCOMPARE(formatBytesUsed(884736), QStringLiteral("864 KiB"));
        QCOMPARE(formatBytesUsed(qint64(12) << 20 | (qint64(1) << 19)), QStringLiteral("12.5 MiB"));
        QCOMPARE(formatBytesUsed(qint64(5) << 28), QStringLiteral("1.25 GiB"));
    }
};

QTEST_GUILESS_MAIN(TestCliUnits)
#include "test_cli_units.moc"
