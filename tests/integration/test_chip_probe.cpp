// ChipProbe against a simulated Ascend host (real bwrap, mknod'd nodes, fake npu-smi).
#include "agent/npu/ChipProbe.h"
#include "support/SimulatedNpuHost.h"

#include <QtTest>

#include <unistd.h>

using namespace runbox::npu;
using runbox::tests::SimulatedNpuHost;

class TestChipProbe final : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<SimulatedNpuHost> m_host;

    NpuConfig config() const {
        NpuConfig c;
        c.deviceRoot = m_host->deviceRoot();
        c.npuSmiPath = m_host->npuSmiPath();
        c.driverPath = QStringLiteral("/nonexistent/driver");
        c.toolkitPath = QStringLiteral("/nonexistent/toolkit");
        c.installInfoPath = m_host->installInfoPath();
        return c;
    }
    ChipProbeOptions options() const {
        ChipProbeOptions o;
        o.extraArgs = {"--ro-bind", m_host->stateDir(), m_host->stateDir()};
        o.timeoutMs = 20000;
        return o;
    }

private Q_SLOTS:
    void initTestCase() {
        if (::geteuid() != 0)
            QSKIP("the simulated host needs root (mknod)");
        if (QStandardPaths::findExecutable("bwrap").isEmpty())
            QSKIP("bwrap is not installed");
        m_host = std::make_unique<SimulatedNpuHost>(8);
        QVERIFY2(m_host->isValid(), qPrintable(m_host->error()));
    }

    void init() {
        for (int i = 0; i < 8; ++i)
            m_host->setOccupied(i, false);
    }

    void testFreeChipIsUsable() {
        const ChipProbeResult result = ChipProbe(config(), options()).probe(3);
        QVERIFY2(result.usable, qPrintable(result.reason));
        QCOMPARE(result.logicId, 3);
        QVERIFY(result.reason.isEmpty());
        QVERIFY(result.at.isValid());
    }

    void testOccupiedChipFailsByIdWithTheDriversLine() {
        m_host->setOccupied(3, true);
        const ChipProbe probe(config(), options());
        const ChipProbeResult occupied = probe.probe(3);
        QVERIFY(!occupied.usable);
        QCOMPARE(occupied.reason,
                 QStringLiteral("NPU 3 cannot be opened inside the sandbox: dcmi model initialized "
                                "failed, because the device is used. ret is -8020"));
        // All-or-nothing is per sandbox: with only one chip bound, the neighbours still pass.
        const ChipProbeResult neighbour = probe.probe(4);
        QVERIFY2(neighbour.usable, qPrintable(neighbour.reason));
    }

    void testParallelProbesReportEachChip() {
        m_host->setOccupied(1, true);
        m_host->setOccupied(6, true);
        const QList<ChipProbeResult> results =
            ChipProbe(config(), options()).probeMany({0, 1, 2, 3, 4, 5, 6, 7});
        QCOMPARE(results.size(), 8);
        for (const ChipProbeResult& r : results) {
            const bool expectUsable = r.logicId != 1 && r.logicId != 6;
            QVERIFY2(r.usable == expectUsable, qPrintable(QString::number(r.logicId) + r.reason));
            if (!expectUsable)
                QVERIFY(
                    r.reason.startsWith(QStringLiteral("NPU %1 cannot be opened").arg(r.logicId)));
        }
    }

    void testMissingChipNodeFailsWithoutLaunching() {
        const int before = m_host->callCount();
        const ChipProbeResult result = ChipProbe(config(), options()).probe(9);
        QVERIFY(!result.usable);
        QVERIFY(result.reason.contains(QLatin1String("NPU 9")));
        QCOMPARE(m_host->callCount(), before);
    }

    void testProbeArgvIsShapedLikeALaunch() {
        QString error;
        const QStringList args = ChipProbe(config(), options()).arguments(5, &error);
        QVERIFY2(!args.isEmpty(), qPrintable(error));
        const int dev = args.indexOf("--dev");
        const int bind = args.indexOf("--dev-bind");
        QVERIFY(dev >= 0 && bind > dev); // fresh /dev first, then the chip
        QCOMPARE(args.mid(bind, 3),
                 QStringList({"--dev-bind", m_host->deviceRoot() + "/davinci5", "/dev/davinci0"}));
        QVERIFY(args.contains("--unshare-all") && args.contains("--cap-drop"));
        QVERIFY(args.contains("--clearenv"));
        QCOMPARE(args.mid(args.size() - 3), QStringList({"--", m_host->npuSmiPath(), "info"}));
        QVERIFY(args.join(' ').contains("LD_LIBRARY_PATH /nonexistent/driver/lib64/common"));
    }

    void testMissingBwrapIsAReasonNotACrash() {
        ChipProbeOptions o = options();
        o.bwrapPath = QStringLiteral("/nonexistent/bwrap");
        const ChipProbeResult result = ChipProbe(config(), o).probe(0);
        QVERIFY(!result.usable);
        QVERIFY2(result.reason.contains(QLatin1String("bubblewrap")), qPrintable(result.reason));
    }

    void testHangingProbeTimesOut() {
        ChipProbeOptions o = options();
        o.timeoutMs = 300;
        NpuConfig c = config();
        QTemporaryDir dir; // an npu-smi that hangs
        QFile script(dir.path() + "/npu-smi");
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("#!/bin/sh\nexec sleep 30\n");
        script.close();
        script.setPermissions(QFile::ReadOwner | QFile::ExeOwner);
        c.npuSmiPath = script.fileName();
        const ChipProbeResult result = ChipProbe(c, o).probe(0);
        QVERIFY(!result.usable);
        QVERIFY2(result.reason.contains(QLatin1String("did not finish within 300 ms")),
                 qPrintable(result.reason));
    }

    void testMeaningfulLineSkipsLogNoise() {
        QCOMPARE(
            ChipProbe::meaningfulLine("[INFO] DrvMngGetConsoleLogLevel failed. (g_conLogLevel=3)\n"
                                      "dcmi model initialized failed, because the device is "
                                      "used. ret is -8020\n[INFO] done\n"),
            QStringLiteral(
                "dcmi model initialized failed, because the device is used. ret is -8020"));
        QCOMPARE(
            ChipProbe::meaningfulLine("[DEBUG] x\nContainer ID verify failed (session ct_id=0; "
                                      "device ct_id=5)\n+-----+\n| a | b |\n"),
            QStringLiteral("Container ID verify failed (session ct_id=0; device ct_id=5)"));
        QCOMPARE(ChipProbe::meaningfulLine("dcmi_init debug: level 3\nsomething odd\n"),
                 QStringLiteral("something odd"));
        QCOMPARE(ChipProbe::meaningfulLine("[INFO] only noise\n\n"), QString());
    }
};

QTEST_GUILESS_MAIN(TestChipProbe)
#include "test_chip_probe.moc"
