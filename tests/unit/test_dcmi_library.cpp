// DcmiLibrary: the absent path (what every host without Ascend sees) and the data path against a
// stand-in library (fake_dcmi.c), since no real libdcmi.so exists here.
#include "agent/npu/DcmiLibrary.h"

#include <QtTest>

using namespace runbox::npu;

class TestDcmiLibrary final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testAbsentLibraryIsReportedWithEveryPathTried() {
        DcmiLibrary dcmi({QStringLiteral("/nonexistent/a/libdcmi.so"),
                          QStringLiteral("/nonexistent/b/libdcmi.so")});
        QVERIFY(!dcmi.available());
        QVERIFY(dcmi.reason().contains(QLatin1String("/nonexistent/a/libdcmi.so")));
        QVERIFY(dcmi.reason().contains(QLatin1String("/nonexistent/b/libdcmi.so")));
        QString error;
        QVERIFY(dcmi.readChips(&error).isEmpty());
        QVERIFY(!error.isEmpty());
    }

    void testNoConfiguredPathIsAbsent() {
        DcmiLibrary dcmi({});
        QVERIFY(!dcmi.available());
        QVERIFY(!dcmi.reason().isEmpty());
    }

    void testLibraryWithoutDcmiSymbolsIsRefused() {
        DcmiLibrary dcmi({QStringLiteral("libm.so.6")});
        QVERIFY(!dcmi.available());
        QVERIFY2(dcmi.reason().contains(QLatin1String("dcmi_init")), qPrintable(dcmi.reason()));
    }

    void testStandInLibraryGivesChipsByLogicIdAndSkipsTheMcu() {
        DcmiLibrary dcmi(
            {QStringLiteral("/nonexistent/libdcmi.so"), QStringLiteral(FAKE_DCMI_PATH)});
        QVERIFY2(dcmi.available(), qPrintable(dcmi.reason()));
        QString error;
        const QList<NpuChip> chips = dcmi.readChips(&error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(chips.size(), 3);
        QCOMPARE(chips[0].logicId, 0);
        QCOMPARE(chips[0].name, QStringLiteral("Ascend 310P3"));
        QVERIFY(!chips[0].supported);
        QVERIFY(!chips[0].powerW.has_value());
        QCOMPARE(chips[1].logicId, 4);
        QCOMPARE(chips[1].npuId, 3);
        QCOMPARE(chips[1].chipId, 0);
        QCOMPARE(chips[1].name, QStringLiteral("Ascend 910B3"));
        QVERIFY(chips[1].supported);
        QCOMPARE(chips[1].powerW.value_or(-1), 93.5); // 0.1 W units
        QCOMPARE(chips[1].hbmTotalMb.value_or(-1), 65536);
        QCOMPARE(chips[1].hbmUsedMb.value_or(-1), 3392);
        QCOMPARE(chips[1].aiCorePercent.value_or(-1), 87);
        QCOMPARE(chips[1].health, QStringLiteral("OK"));
        QCOMPARE(chips[2].logicId, 5);
        QCOMPARE(chips[2].health, QStringLiteral("Warning"));
        QCOMPARE(chips[2].temperatureC.value_or(-1), 41);
    }
};

QTEST_GUILESS_MAIN(TestDcmiLibrary)
#include "test_dcmi_library.moc"
