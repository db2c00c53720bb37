// NpuConfig: defaults of a stock CANN install and environment overrides.
#include "agent/npu/NpuConfig.h"

#include <QtTest>

using namespace runbox::npu;

class TestNpuConfig final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testDefaultsFollowAStockInstall() {
        const NpuConfig c;
        QCOMPARE(c.deviceRoot, QStringLiteral("/dev"));
        QCOMPARE(c.driverPath, QStringLiteral("/usr/local/Ascend/driver"));
        QCOMPARE(c.toolkitPath, QStringLiteral("/usr/local/Ascend/ascend-toolkit/latest"));
        QCOMPARE(c.installInfoPath, QStringLiteral("/etc/ascend_install.info"));
        QCOMPARE(c.cacheTtlMs, 60000);
        QVERIFY(!c.brokerEnabled);
        QCOMPARE(c.busyPolicy, ChipBusyPolicy::Queue);
        QCOMPARE(c.resolvedDcmiPaths().value(0),
                 QStringLiteral("/usr/local/Ascend/driver/lib64/driver/libdcmi.so"));
    }

    void testEnvironmentOverrides() {
        QProcessEnvironment env;
        env.insert("RUNBOX_NPU_DEVICE_ROOT", "/sim/dev");
        env.insert("RUNBOX_NPU_SMI", "/sim/npu-smi");
        env.insert("RUNBOX_NPU_DRIVER_PATH", "/opt/drv");
        env.insert("RUNBOX_NPU_DCMI_PATHS", "/a/libdcmi.so:/b/libdcmi.so");
        env.insert("RUNBOX_NPU_BUSY_POLICY", "refuse");
        env.insert("RUNBOX_NPU_BROKER", "1");
        env.insert("RUNBOX_NPU_WORKLOADS", "/etc/runbox/npu-workloads.json");
        env.insert("RUNBOX_NPU_PROBE_BINDS", "/opt/vendor/state::relative/path:/var/log/npu/");
        env.insert("RUNBOX_NPU_CACHE_TTL_MS", "5000");
        env.insert("RUNBOX_NPU_PROBE_TIMEOUT_MS", "-3");
        const NpuConfig c = NpuConfig::fromEnvironment(env);
        QCOMPARE(c.deviceRoot, QStringLiteral("/sim/dev"));
        QCOMPARE(c.resolvedNpuSmiPath(), QStringLiteral("/sim/npu-smi"));
        QCOMPARE(c.resolvedDcmiPaths(), QStringList({"/a/libdcmi.so", "/b/libdcmi.so"}));
        QCOMPARE(c.busyPolicy, ChipBusyPolicy::Refuse);
        QVERIFY(c.brokerEnabled);
        QCOMPARE(c.workloadCatalogPath, QStringLiteral("/etc/runbox/npu-workloads.json"));
        // Relative paths are dropped; the rest are cleaned.
        QCOMPARE(c.probeBinds, QStringList({"/opt/vendor/state", "/var/log/npu"}));
        QCOMPARE(c.cacheTtlMs, 5000);
        QCOMPARE(c.probeTimeoutMs, 15000); // a negative value keeps the default
        env.insert("RUNBOX_NPU_BROKER", "no");
        QVERIFY(!NpuConfig::fromEnvironment(env).brokerEnabled);
        env.insert("RUNBOX_NPU_BUSY_POLICY", "bogus");
        QCOMPARE(NpuConfig::fromEnvironment(env).busyPolicy, ChipBusyPolicy::Queue);
    }
};

QTEST_GUILESS_MAIN(TestNpuConfig)
#include "test_npu_config.moc"
