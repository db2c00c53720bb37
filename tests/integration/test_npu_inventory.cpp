// NpuInventory: sources (DCMI, npu-smi, none), support, probes, cache.
#include "agent/npu/NpuInventory.h"
#include "support/SimulatedNpuHost.h"

#include <QJsonArray>
#include <QtTest>

#include <unistd.h>

using namespace runbox::npu;
using runbox::tests::SimulatedNpuHost;

namespace {

/// An npu-smi that replays fixture files and counts its runs in <dir>/calls.
QString writeReplayNpuSmi(const QString& dir, const char* mapping, const char* info,
                          int exitCode = 0) {
    const QString fixtures = QStringLiteral(RUNBOX_SOURCE_DIR "/tests/fixtures/npu/");
    const QString path = dir + "/npu-smi";
    QFile script(path);
    script.open(QIODevice::WriteOnly);
    script.write(QStringLiteral("#!/bin/sh\necho run >> '%1/calls'\n"
                                "if [ %4 -ne 0 ]; then echo '[INFO] noise'; echo 'dcmi module "
                                "initialize failed. ret is -8005'; exit %4; fi\n"
                                "case \"$*\" in\n  'info -m') cat '%2' ;;\n  info) cat '%3' ;;\n"
                                "  *) exit 2 ;;\nesac\n")
                     .arg(dir, fixtures + mapping, fixtures + info)
                     .arg(exitCode)
                     .toUtf8());
    script.close();
    script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

int calls(const QString& dir) {
    QFile file(dir + "/calls");
    return file.open(QIODevice::ReadOnly) ? static_cast<int>(file.readAll().count('\n')) : 0;
}

NpuConfig offlineConfig(const QString& npuSmi, const QString& deviceRoot) {
    NpuConfig c;
    c.deviceRoot = deviceRoot;
    c.npuSmiPath = npuSmi;
    c.dcmiLibraryPaths = {QStringLiteral("/nonexistent/libdcmi.so")};
    c.driverPath = QStringLiteral("/nonexistent/driver");
    c.toolkitPath = QStringLiteral("/nonexistent/toolkit");
    c.installInfoPath = QStringLiteral("/nonexistent/ascend_install.info");
    c.probeChips = false;
    return c;
}

} // namespace

class TestNpuInventory final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testHostWithoutNpuGivesEmptyListAndReason() {
        QTemporaryDir dev;
        NpuInventory inventory(offlineConfig(dev.path() + "/no-npu-smi", dev.path()));
        const NpuSnapshot snapshot = inventory.snapshot();
        QCOMPARE(snapshot.source, QStringLiteral("none"));
        QVERIFY(snapshot.chips.isEmpty());
        QVERIFY2(snapshot.reason.contains("no Ascend NPU found"), qPrintable(snapshot.reason));
        QVERIFY(snapshot.reason.contains("libdcmi.so"));
        QVERIFY(snapshot.reason.contains("no davinci device nodes"));
        const QJsonObject json = snapshot.toJson();
        QCOMPARE(json.value("chips").toArray().size(), 0);
        QVERIFY(!json.value("capturedAt").toString().isEmpty());
    }

    void testNpuSmiFallbackListsMixedHostAndRefusesThe310P() {
        QTemporaryDir dir;
        NpuInventory inventory(offlineConfig(
            writeReplayNpuSmi(dir.path(), "mixed_310p_info_m.txt", "mixed_310p_info.txt"),
            dir.path()));
        const NpuSnapshot snapshot = inventory.snapshot();
        QCOMPARE(snapshot.source, QStringLiteral("npu-smi"));
        QCOMPARE(snapshot.chips.size(), 6);
        const NpuChip* b4 = snapshot.find(1);
        QVERIFY(b4 && b4->supported);
        QCOMPARE(b4->temperatureC.value_or(-1), 41);
        QVERIFY(!b4->probe.has_value()); // probing off
        const NpuChip* p310 = snapshot.find(4);
        QVERIFY(p310 && !p310->supported);
        QVERIFY(p310->probe.has_value());
        QVERIFY(!p310->probe->usable);
        QVERIFY(p310->probe->reason.contains("Ascend 310P3"));
        const QJsonObject chip = snapshot.toJson().value("chips").toArray().at(4).toObject();
        QCOMPARE(chip.value("supported").toBool(), false);
        QVERIFY(chip.value("unsupportedReason").toString().contains("310P3"));
        QCOMPARE(chip.value("probe").toObject().value("usable").toBool(), false);
    }

    void testSnapshotIsCachedUntilRefreshOrInvalidate() {
        QTemporaryDir dir;
        NpuConfig config = offlineConfig(
            writeReplayNpuSmi(dir.path(), "910b3_8chip_info_m.txt", "910b3_8chip_info.txt"),
            dir.path());
        NpuInventory inventory(config);
        QVERIFY(!inventory.cached().has_value());
        const NpuSnapshot first = inventory.snapshot();
        QCOMPARE(first.chips.size(), 8);
        QCOMPARE(calls(dir.path()), 2); // info -m + info
        const NpuSnapshot second = inventory.snapshot();
        QCOMPARE(calls(dir.path()), 2);
        QCOMPARE(second.capturedAt, first.capturedAt);
        inventory.snapshot(true);
        QCOMPARE(calls(dir.path()), 4);
        inventory.invalidate();
        inventory.snapshot();
        QCOMPARE(calls(dir.path()), 6);
        QVERIFY(inventory.cached().has_value());
    }

    void testFailingNpuSmiIsReportedAndNotCached() {
        QTemporaryDir dir;
        NpuInventory inventory(offlineConfig(
            writeReplayNpuSmi(dir.path(), "910b3_8chip_info_m.txt", "910b3_8chip_info.txt", 3),
            dir.path()));
        const NpuSnapshot snapshot = inventory.snapshot();
        QCOMPARE(snapshot.source, QStringLiteral("none"));
        QVERIFY(snapshot.chips.isEmpty());
        QVERIFY2(snapshot.reason.contains("ret is -8005"), qPrintable(snapshot.reason));
        inventory.snapshot();
        QCOMPARE(calls(dir.path()), 2); // read again: failures are not cached
    }

    void testDcmiIsPreferredWhenItLoads() {
        QTemporaryDir dir;
        NpuConfig config = offlineConfig(
            writeReplayNpuSmi(dir.path(), "910b3_8chip_info_m.txt", "910b3_8chip_info.txt"),
            dir.path());
        config.dcmiLibraryPaths = {QStringLiteral(FAKE_DCMI_PATH)};
        NpuInventory inventory(config);
        const NpuSnapshot snapshot = inventory.snapshot();
        QCOMPARE(snapshot.source, QStringLiteral("dcmi"));
        QCOMPARE(snapshot.chips.size(), 3);
        QCOMPARE(calls(dir.path()), 0);
    }

    void testSimulatedHostProbesEveryChipAndFailsTheOccupiedOne() {
        if (::geteuid() != 0)
            QSKIP("the simulated host needs root (mknod)");
        if (QStandardPaths::findExecutable("bwrap").isEmpty())
            QSKIP("bwrap is not installed");
        SimulatedNpuHost host(8);
        QVERIFY2(host.isValid(), qPrintable(host.error()));
        host.setOccupied(3, true);
        NpuConfig config = offlineConfig(host.npuSmiPath(), host.deviceRoot());
        config.installInfoPath = host.installInfoPath();
        config.probeChips = true;
        ChipProbeOptions probe;
        probe.extraArgs = {"--ro-bind", host.stateDir(), host.stateDir()};
        NpuInventory inventory(config, probe);
        const NpuSnapshot snapshot = inventory.snapshot();
        QCOMPARE(snapshot.source, QStringLiteral("npu-smi"));
        QCOMPARE(snapshot.chips.size(), 8);
        for (const NpuChip& chip : snapshot.chips) {
            // The host view calls every chip healthy, the occupied one too...
            QCOMPARE(chip.health, QStringLiteral("OK"));
            QVERIFY(chip.probe.has_value());
            // ...only the probe tells them apart.
            QCOMPARE(chip.probe->usable, chip.logicId != 3);
        }
        QCOMPARE(snapshot.find(3)->probe->reason,
                 QStringLiteral("NPU 3 cannot be opened inside the sandbox: dcmi model initialized "
                                "failed, because the device is used. ret is -8020"));

        // Re-probe before an execution: chip 6 was taken meanwhile.
        host.setOccupied(6, true);
        const QList<ChipProbeResult> again = inventory.reprobe({6, 7});
        QVERIFY(!again[0].usable);
        QVERIFY(again[1].usable);
        QVERIFY(!inventory.cached()->find(6)->probe->usable);

        // Chips held by our own executions are not probed (it would collide with them).
        inventory.setReservedChipsProvider([] { return QSet<int>{6}; });
        host.setOccupied(6, false);
        const NpuSnapshot refreshed = inventory.snapshot(true);
        QVERIFY(!refreshed.find(6)->probe->usable); // kept from before, not re-probed
        QVERIFY(!refreshed.find(3)->probe->usable);
    }
};

QTEST_GUILESS_MAIN(TestNpuInventory)
#include "test_npu_inventory.moc"
