// NpuConfig: defaults of a stock CANN install and the RUNBOX_NPU_* rows of the configuration
// table.
#include "agent/config/ConfigValues.h"
#include "agent/npu/NpuConfig.h"

#include <QtTest>

using namespace runbox::npu;
using runbox::config::ConfigValues;

namespace {
/// The table resolved from @p env alone (state dir in /tmp so no agent.conf is read).
std::optional<NpuConfig> fromEnvironment(QProcessEnvironment env, QString* error = nullptr) {
    env.insert("RUNBOX_STATE_DIR", "/nonexistent/runbox-test-state");
    ConfigValues values;
    QString e;
    if (!values.resolve({}, env, &e)) {
        if (error)
            *error = e;
        return std::nullopt;
    }
    return NpuConfig::fromConfig(values);
}
} // namespace

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
        env.insert("RUNBOX_NPU_PROBE_BINDS", "/opt/vendor/state::/var/log/npu/");
        env.insert("RUNBOX_NPU_CACHE_TTL_MS", "5000");
        const std::optional<NpuConfig> parsed = fromEnvironment(env);
        QVERIFY(parsed);
        const NpuConfig& c = *parsed;
        QCOMPARE(c.deviceRoot, QStringLiteral("/sim/dev"));
        QCOMPARE(c.resolvedNpuSmiPath(), QStringLiteral("/sim/npu-smi"));
        QCOMPARE(c.resolvedDcmiPaths(), QStringList({"/a/libdcmi.so", "/b/libdcmi.so"}));
        QCOMPARE(c.busyPolicy, ChipBusyPolicy::Refuse);
        QVERIFY(c.brokerEnabled);
        QCOMPARE(c.workloadCatalogPath, QStringLiteral("/etc/runbox/npu-workloads.json"));
        QCOMPARE(c.probeBinds, QStringList({"/opt/vendor/state", "/var/log/npu"})); // cleaned
        QCOMPARE(c.cacheTtlMs, 5000);
        QCOMPARE(c.probeTimeoutMs, 15000);
        env.insert("RUNBOX_NPU_BROKER", "no");
        QVERIFY(!fromEnvironment(env)->brokerEnabled);
        env.insert("RUNBOX_NPU_BUSY_POLICY", "QUEUE");
        QCOMPARE(fromEnvironment(env)->busyPolicy, ChipBusyPolicy::Queue);
    }

    void testNothingSetGivesTheDefaults() {
        const std::optional<NpuConfig> c = fromEnvironment(QProcessEnvironment());
        QVERIFY(c);
        const NpuConfig d;
        QCOMPARE(c->deviceRoot, d.deviceRoot);
        QCOMPARE(c->npuSmiPath, d.npuSmiPath);
        QCOMPARE(c->driverPath, d.driverPath);
        QCOMPARE(c->toolkitPath, d.toolkitPath);
        QCOMPARE(c->installInfoPath, d.installInfoPath);
        QCOMPARE(c->dcmiLibraryPaths, d.dcmiLibraryPaths);
        QCOMPARE(c->probeBinds, d.probeBinds);
        QCOMPARE(c->cacheTtlMs, d.cacheTtlMs);
        QCOMPARE(c->probeTimeoutMs, d.probeTimeoutMs);
        QCOMPARE(c->busyPolicy, d.busyPolicy);
        QCOMPARE(c->brokerEnabled, d.brokerEnabled);
        QCOMPARE(c->workloadCatalogPath, d.workloadCatalogPath);
    }

    void testBadValuesAreRefusedNamingTheVariable_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("value");
        QTest::newRow("negative timeout") << "RUNBOX_NPU_PROBE_TIMEOUT_MS"
                                          << "-3";
        QTest::newRow("zero ttl") << "RUNBOX_NPU_CACHE_TTL_MS"
                                  << "0";
        QTest::newRow("huge ttl") << "RUNBOX_NPU_CACHE_TTL_MS"
                                  << "4294967296";
        QTest::newRow("policy") << "RUNBOX_NPU_BUSY_POLICY"
                                << "bogus";
        QTest::newRow("broker") << "RUNBOX_NPU_BROKER"
                                << "maybe";
        QTest::newRow("relative bind") << "RUNBOX_NPU_PROBE_BINDS"
                                       << "/ok:relative/path";
    }
    void testBadValuesAreRefusedNamingTheVariable() {
        QFETCH(QString, name);
        QFETCH(QString, value);
        QProcessEnvironment env;
        env.insert(name, value);
        QString error;
        QVERIFY(!fromEnvironment(env, &error));
        QVERIFY2(error.contains(name), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestNpuConfig)
#include "test_npu_config.moc"
