// NpuPassthrough: selection validation and the exact bwrap fragment / environment.
#include "agent/http/ErrorStatus.h"
#include "agent/npu/NpuPassthrough.h"
#include "support/SimulatedNpuHost.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

#include <unistd.h>

using namespace runbox::npu;
using runbox::Error;
using runbox::tests::SimulatedNpuHost;

namespace {

NpuSnapshot inventoryOf(int count, int unsupportedFrom = 1 << 20) {
    NpuSnapshot snapshot;
    snapshot.source = QStringLiteral("npu-smi");
    for (int i = 0; i < count; ++i) {
        NpuChip chip;
        chip.logicId = i;
        chip.name =
            i >= unsupportedFrom ? QStringLiteral("Ascend 310P3") : QStringLiteral("Ascend 910B3");
        const ChipSupport support = ChipSupport::classify(chip.name);
        chip.supported = support.supported;
        chip.unsupportedReason = support.reason;
        snapshot.chips << chip;
    }
    return snapshot;
}

QJsonValue json(const char* text) {
    return QJsonDocument::fromJson(QByteArray("{\"v\":") + text + "}").object().value("v");
}

} // namespace

class TestNpuPassthrough final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testValidSelectionIsSortedAndDeduplicated() {
        Error error;
        QCOMPARE(NpuPassthrough::parseSelection(json("[5, 2, 2, 5]"), inventoryOf(8), &error),
                 QList<int>({2, 5}));
        QVERIFY(error.code.isEmpty());
        QVERIFY(NpuPassthrough::parseSelection(QJsonValue(), inventoryOf(8), &error).isEmpty());
        QVERIFY(NpuPassthrough::parseSelection(json("[]"), inventoryOf(8), &error).isEmpty());
        QVERIFY(error.code.isEmpty());
    }

    void testMalformedIdsAreRefusedWith400_data() {
        QTest::addColumn<QByteArray>("value");
        QTest::newRow("path") << QByteArray("[\"../sda\"]");
        QTest::newRow("injection") << QByteArray("[\"0;\"]");
        QTest::newRow("numeric-string") << QByteArray("[\"3\"]");
        QTest::newRow("absent-chip") << QByteArray("[99]");
        QTest::newRow("negative") << QByteArray("[-1]");
        QTest::newRow("fraction") << QByteArray("[1.5]");
        QTest::newRow("bool") << QByteArray("[true]");
        QTest::newRow("null-entry") << QByteArray("[null]");
        QTest::newRow("nested") << QByteArray("[[0]]");
        QTest::newRow("huge") << QByteArray("[1e300]");
        QTest::newRow("not-array") << QByteArray("3");
        QTest::newRow("object") << QByteArray("{\"0\":1}");
        QTest::newRow("one-bad-among-good") << QByteArray("[0, 1, \"2\"]");
    }
    void testMalformedIdsAreRefusedWith400() {
        QFETCH(QByteArray, value);
        Error error;
        const QList<int> ids =
            NpuPassthrough::parseSelection(json(value.constData()), inventoryOf(8), &error);
        QVERIFY(ids.isEmpty());
        QCOMPARE(runbox::http::httpStatus(error.kind), 400);
        QCOMPARE(error.code, QStringLiteral("invalid_npu_devices"));
        QVERIFY(!error.message.isEmpty());
    }

    void testFormIsCheckedWithoutAnyInventory_data() {
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<bool>("wellFormed");
        // Ids no host has are still well-formed: what exists is the inventory's question.
        QTest::newRow("absent-chips") << QByteArray("[99, 1023, 99]") << true;
        QTest::newRow("null") << QByteArray("null") << true;
        QTest::newRow("empty") << QByteArray("[]") << true;
        QTest::newRow("1024-entries")
            << QByteArray("[" + QByteArray("0,").repeated(1023) + "0]") << true;
        QTest::newRow("string") << QByteArray("\"x\"") << false;
        QTest::newRow("object") << QByteArray("{}") << false;
        QTest::newRow("1025-entries")
            << QByteArray("[" + QByteArray("0,").repeated(1024) + "0]") << false;
        QTest::newRow("id-past-1023") << QByteArray("[1024]") << false;
        QTest::newRow("numeric-string") << QByteArray("[\"3\"]") << false;
        QTest::newRow("fraction") << QByteArray("[0, 1.5]") << false;
    }
    void testFormIsCheckedWithoutAnyInventory() {
        QFETCH(QByteArray, value);
        QFETCH(bool, wellFormed);
        Error error;
        NpuPassthrough::parseIds(json(value.constData()), &error);
        if (wellFormed) {
            QVERIFY2(error.code.isEmpty(), qPrintable(error.message));
            return;
        }
        QCOMPARE(runbox::http::httpStatus(error.kind), 400);
        QCOMPARE(error.code, QStringLiteral("invalid_npu_devices"));
        // The selection refuses the same form with the same error, whatever the inventory.
        Error selection;
        QVERIFY(NpuPassthrough::parseSelection(json(value.constData()), inventoryOf(8), &selection)
                    .isEmpty());
        QCOMPARE(selection.code, error.code);
        QCOMPARE(selection.message, error.message);
    }

    void testUnsupportedChipIsRefusedNamingIt() {
        Error error;
        QVERIFY(NpuPassthrough::parseSelection(json("[6]"), inventoryOf(8, 6), &error).isEmpty());
        QCOMPARE(error.code, QStringLiteral("invalid_npu_devices"));
        QVERIFY2(error.message.contains(QLatin1String("Ascend 310P3")), qPrintable(error.message));
    }

    void testHostWithoutNpuRefusesAnyChip() {
        Error error;
        QVERIFY(NpuPassthrough::parseSelection(json("[0]"), NpuSnapshot(), &error).isEmpty());
        QCOMPARE(runbox::http::httpStatus(error.kind), 400);
        QVERIFY(error.message.contains(QLatin1String("no Ascend NPU")));
    }

    void testEmptySelectionAddsNothingAtAll() {
        NpuPassthrough passthrough(NpuConfig{});
        Error error;
        const NpuLaunchPlan plan = passthrough.build({}, &error);
        QVERIFY(plan.isEmpty());
        QVERIFY(plan.bwrapArgs.isEmpty());
        QVERIFY(plan.env.isEmpty());
        const QMap<QString, QString> base{{"PATH", "/usr/bin"}, {"HOME", "/tmp"}};
        QCOMPARE(plan.mergedEnvironment(base), base);
    }

    void testChipsAreBoundInHostOrderRenumberedFromZero() {
        if (::geteuid() != 0)
            QSKIP("mknod needs root");
        SimulatedNpuHost host(8, false);
        QVERIFY2(host.isValid(), qPrintable(host.error()));
        // Only two of the three management nodes exist: only those are bound.
        QVERIFY(QProcess::execute("mknod",
                                  {host.deviceRoot() + "/davinci_manager", "c", "1", "3"}) == 0);
        QVERIFY(QProcess::execute("mknod", {host.deviceRoot() + "/hisi_hdc", "c", "1", "3"}) == 0);
        NpuConfig config;
        config.deviceRoot = host.deviceRoot();
        config.driverPath = QStringLiteral("/usr/local/Ascend/driver"); // under /usr: no bind
        config.toolkitPath = host.root() + "/toolkit-link";             // outside /usr, a symlink
        QVERIFY(QDir(host.root()).mkpath("toolkit-8.0"));
        QVERIFY(QFile::link(host.root() + "/toolkit-8.0", config.toolkitPath));
        config.installInfoPath = host.installInfoPath();
        Error error;
        const NpuLaunchPlan plan = NpuPassthrough(config).build({5, 2, 5}, &error);
        QVERIFY2(!plan.isEmpty(), qPrintable(error.message));
        const QString root = host.deviceRoot();
        QCOMPARE(plan.hostLogicIds, QList<int>({2, 5}));
        QCOMPARE(plan.bwrapArgs,
                 QStringList({"--dev-bind", root + "/davinci2", "/dev/davinci0", "--dev-bind",
                              root + "/davinci5", "/dev/davinci1", "--dev-bind",
                              root + "/davinci_manager", "/dev/davinci_manager", "--dev-bind",
                              root + "/hisi_hdc", "/dev/hisi_hdc", "--ro-bind",
                              host.installInfoPath(), "/etc/ascend_install.info", "--ro-bind",
                              host.root() + "/toolkit-8.0", config.toolkitPath}));
        QCOMPARE(plan.env.value("ASCEND_VISIBLE_DEVICES"), QStringLiteral("0,1"));
        QCOMPARE(plan.env.value("ASCEND_RT_VISIBLE_DEVICES"), QStringLiteral("0,1"));
    }

    void testMissingNodeIsRefused() {
        if (::geteuid() != 0)
            QSKIP("mknod needs root");
        SimulatedNpuHost host(4);
        QVERIFY2(host.isValid(), qPrintable(host.error()));
        NpuConfig config;
        config.deviceRoot = host.deviceRoot();
        Error error;
        QVERIFY(!NpuPassthrough(config).build({3}, &error).isEmpty()); // positive control
        QVERIFY(NpuPassthrough(config).build({3, 4}, &error).isEmpty());
        QCOMPARE(error.code, QStringLiteral("npu_device_missing"));
        QVERIFY(error.message.contains(QLatin1String("NPU 4")));
        // A regular file is not a device node.
        QFile fake(host.deviceRoot() + "/davinci9");
        QVERIFY(fake.open(QIODevice::WriteOnly));
        fake.close();
        QVERIFY(NpuPassthrough(config).build({9}, &error).isEmpty());
    }

    void testEnvironmentRestatesWhatClearenvRemoved() {
        if (::geteuid() != 0)
            QSKIP("mknod needs root");
        SimulatedNpuHost host(2);
        QVERIFY2(host.isValid(), qPrintable(host.error()));
        NpuConfig config;
        config.deviceRoot = host.deviceRoot();
        config.driverPath = QStringLiteral("/opt/drv");
        config.toolkitPath = QStringLiteral("/opt/tk");
        Error error;
        const NpuLaunchPlan plan = NpuPassthrough(config).build({1}, &error);
        QVERIFY2(!plan.isEmpty(), qPrintable(error.message));
        const QMap<QString, QString> env = plan.mergedEnvironment(
            {{"PATH", "/usr/bin:/bin"}, {"PYTHONPATH", "/opt/pkgs"}, {"HOME", "/tmp"}});
        QCOMPARE(env.value("LD_LIBRARY_PATH"),
                 QStringLiteral("/opt/drv/lib64/common:/opt/drv/lib64/driver:/opt/tk/lib64"));
        QCOMPARE(env.value("ASCEND_TOOLKIT_HOME"), QStringLiteral("/opt/tk"));
        QCOMPARE(env.value("ASCEND_OPP_PATH"), QStringLiteral("/opt/tk/opp"));
        QCOMPARE(env.value("PYTHONPATH"),
                 QStringLiteral("/opt/pkgs:/opt/tk/python/site-packages:"
                                "/opt/tk/opp/built-in/op_impl/ai_core/tbe"));
        QCOMPARE(env.value("PATH"), QStringLiteral("/usr/local/bin:/usr/bin:/bin"));
        QCOMPARE(env.value("HOME"), QStringLiteral("/tmp"));
        QCOMPARE(env.value("ASCEND_RT_VISIBLE_DEVICES"), QStringLiteral("0"));
        // Merging twice does not stack /usr/local/bin.
        QCOMPARE(plan.mergedEnvironment(env).value("PATH"), env.value("PATH"));
        const QStringList setenv = plan.setenvArgs({});
        QVERIFY(setenv.contains("ASCEND_OPP_PATH"));
        QCOMPARE(setenv.count("--setenv") * 3, setenv.size());
    }
};

QTEST_GUILESS_MAIN(TestNpuPassthrough)
#include "test_npu_passthrough.moc"
