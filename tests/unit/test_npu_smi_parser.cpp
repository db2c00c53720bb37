// NpuSmiParser against verbatim-format fixtures (tests/fixtures/npu/).
#include "agent/npu/NpuSmiParser.h"

#include <QFile>
#include <QJsonArray>
#include <QtTest>

using namespace runbox::npu;

namespace {

QString fixture(const char* name) {
    QFile file(QStringLiteral(RUNBOX_SOURCE_DIR "/tests/fixtures/npu/") + QLatin1String(name));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing fixture %s", name);
    return QString::fromUtf8(file.readAll());
}

QList<int> logicIds(const QList<NpuChip>& chips) {
    QList<int> ids;
    for (const NpuChip& chip : chips)
        ids << chip.logicId;
    return ids;
}

} // namespace

class TestNpuSmiParser final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testMappingOf910B3HostSkipsMcuRows() {
        const auto rows = NpuSmiParser::parseMapping(fixture("910b3_8chip_info_m.txt"));
        QCOMPARE(rows.size(), 8);
        for (int i = 0; i < 8; ++i) {
            QCOMPARE(rows[i].npuId, i);
            QCOMPARE(rows[i].chipId, 0);
            QCOMPARE(rows[i].logicId, i);
            QCOMPARE(rows[i].name, QStringLiteral("Ascend 910B3"));
        }
    }

    void testMappingOf910CGivesOneLogicIdPerDie() {
        const auto rows = NpuSmiParser::parseMapping(fixture("910c_dualdie_info_m.txt"));
        QCOMPARE(rows.size(), 16);
        QCOMPARE(rows[2].npuId, 1);
        QCOMPARE(rows[2].chipId, 0);
        QCOMPARE(rows[2].logicId, 2);
        QCOMPARE(rows[3].npuId, 1);
        QCOMPARE(rows[3].chipId, 1);
        QCOMPARE(rows[3].logicId, 3);
        QCOMPARE(rows[3].name, QStringLiteral("Ascend 910_9392"));
    }

    void testInfoOf910B3ReadsEveryChipAndStopsAtProcessTable() {
        const auto readings = NpuSmiParser::parseInfo(fixture("910b3_8chip_info.txt"));
        // The process table holds "| 4       0 | 2305412 | python3.9 | 57856 |", which looks
        // like a chip row: stopping at the table keeps it out.
        QCOMPARE(readings.size(), 8);
        const NpuSmiReading& r4 = readings[4];
        QCOMPARE(r4.npuId, 4);
        QCOMPARE(r4.chipId, 0);
        QCOMPARE(r4.name, QStringLiteral("910B3"));
        QCOMPARE(r4.health, QStringLiteral("OK"));
        QCOMPARE(r4.powerW.value_or(-1), 101.3);
        QCOMPARE(r4.temperatureC.value_or(-1), 41);
        QCOMPARE(r4.aiCorePercent.value_or(-1), 87);
        QCOMPARE(r4.hbmUsedMb.value_or(-1), 61240);
        QCOMPARE(r4.hbmTotalMb.value_or(-1), 65536);
        QCOMPARE(r4.busId, QStringLiteral("0000:01:00.0"));
    }

    void testInfoOf910CGivesOneReadingPerDie() {
        const auto readings = NpuSmiParser::parseInfo(fixture("910c_dualdie_info.txt"));
        QCOMPARE(readings.size(), 16);
        QCOMPARE(readings[1].npuId, 0);
        QCOMPARE(readings[1].chipId, 1);
        QVERIFY(!readings[1].powerW.has_value()); // "-": the card's power is on die 0
        QCOMPARE(readings[0].powerW.value_or(-1), 165.0);
        QCOMPARE(readings[1].busId, QStringLiteral("0000:9F:00.0"));
        QCOMPARE(readings[1].hbmUsedMb.value_or(-1), 2861);
    }

    void testMixedHostKeepsNaAsNullAndDuoDiesShareTheCardRow() {
        const auto readings = NpuSmiParser::parseInfo(fixture("mixed_310p_info.txt"));
        QCOMPARE(readings.size(), 6);
        QCOMPARE(readings[2].health, QStringLiteral("Warning"));
        QVERIFY(!readings[3].powerW.has_value());
        QVERIFY(!readings[3].aiCorePercent.has_value());
        QCOMPARE(readings[4].npuId, 5);
        QCOMPARE(readings[4].chipId, 0);
        QCOMPARE(readings[5].chipId, 1);
        QCOMPARE(readings[5].temperatureC.value_or(-1), 52);
        QVERIFY(!readings[5].hbmTotalMb.has_value()); // 310P: Memory-Usage only, no HBM column
    }

    void testJoinUsesLogicIdAsIdentity() {
        const auto chips =
            NpuSmiParser::join(NpuSmiParser::parseMapping(fixture("910c_dualdie_info_m.txt")),
                               NpuSmiParser::parseInfo(fixture("910c_dualdie_info.txt")));
        QCOMPARE(logicIds(chips),
                 QList<int>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}));
        const NpuChip& die = chips[5]; // card 2, die 1
        QCOMPARE(die.npuId, 2);
        QCOMPARE(die.chipId, 1);
        QCOMPARE(die.busId, QStringLiteral("0000:BB:00.0"));
        QVERIFY(die.supported);
    }

    void testMixedHostListsThe310PAndRefusesItByName() {
        const auto chips =
            NpuSmiParser::join(NpuSmiParser::parseMapping(fixture("mixed_310p_info_m.txt")),
                               NpuSmiParser::parseInfo(fixture("mixed_310p_info.txt")));
        QCOMPARE(logicIds(chips), QList<int>({0, 1, 2, 3, 4, 5}));
        QVERIFY(chips[0].supported);
        QCOMPARE(chips[0].hbmTotalMb.value_or(-1), 32768);
        QVERIFY(!chips[4].supported);
        QVERIFY2(chips[4].unsupportedReason.contains(QLatin1String("Ascend 310P3")),
                 qPrintable(chips[4].unsupportedReason));
        QCOMPARE(chips[4].busId, QStringLiteral("0000:01:00.0"));
        QCOMPARE(chips[5].npuId, 5);
        QCOMPARE(chips[5].chipId, 1);
    }

    void testTruncatedOutputKeepsOnlyCompleteRows() {
        const auto rows = NpuSmiParser::parseMapping(fixture("910b3_truncated_info_m.txt"));
        QCOMPARE(rows.size(), 5); // logic 5's line was cut: not trusted
        const auto readings = NpuSmiParser::parseInfo(fixture("910b3_truncated_info.txt"));
        QCOMPARE(readings.size(), 3); // card 3's chip row was cut
        const auto chips = NpuSmiParser::join(rows, readings);
        QCOMPARE(chips.size(), 5);
        QVERIFY(chips[2].powerW.has_value());
        QVERIFY(!chips[3].powerW.has_value());
        QVERIFY(chips[3].health.isEmpty());
    }

    void testGarbageParsesToNothing() {
        const QString text = fixture("garbage.txt");
        QCOMPARE(NpuSmiParser::parseMapping(text).size(), 0);
        QCOMPARE(NpuSmiParser::parseInfo(text).size(), 0);
        QCOMPARE(NpuSmiParser::parseMapping(QString()).size(), 0);
        QCOMPARE(NpuSmiParser::parseInfo(QStringLiteral("|||\n| a | b | c |\n")).size(), 0);
    }

    void testChipSupportAcceptsThe910FamilyOnly() {
        for (const char* name : {"Ascend 910B3", "910B4", "Ascend910", "Ascend 910A",
                                 "Ascend 910_9392", "ascend 910c", "Ascend910B1"})
            QVERIFY2(ChipSupport::classify(QLatin1String(name)).supported, name);
        for (const char* name : {"Ascend 310P3", "310B1", "Ascend 310", "Mcu", ""}) {
            const ChipSupport support = ChipSupport::classify(QLatin1String(name));
            QVERIFY2(!support.supported, name);
            QVERIFY(!support.reason.isEmpty());
            if (*name)
                QVERIFY(support.reason.contains(QLatin1String(name)));
        }
    }

    void testChipJsonHasNullForMissingReadings() {
        NpuChip chip;
        chip.logicId = 3;
        chip.name = QStringLiteral("Ascend 910B3");
        chip.supported = true;
        chip.powerW = 93.5;
        const QJsonObject json = chip.toJson();
        QCOMPARE(json.value("logicId").toInt(), 3);
        QCOMPARE(json.value("powerW").toDouble(), 93.5);
        QVERIFY(json.value("temperatureC").isNull());
        QVERIFY(json.value("hbmUsedMb").isNull());
        QVERIFY(json.value("probe").isNull());
        NpuSnapshot snapshot;
        snapshot.chips << chip;
        QCOMPARE(snapshot.toJson().value("source").toString(), QStringLiteral("none"));
        QCOMPARE(snapshot.toJson().value("chips").toArray().size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestNpuSmiParser)
#include "test_npu_smi_parser.moc"
