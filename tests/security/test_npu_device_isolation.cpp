// Security: a sandbox given chips sees exactly those chips (renumbered), nothing else of the
// host's device tree, on a simulated Ascend host (real bwrap, mknod'd nodes).
#include "agent/http/ErrorStatus.h"
#include "agent/npu/ChipProbe.h"
#include "agent/npu/NpuPassthrough.h"
#include "support/SimulatedNpuHost.h"

#include <QProcess>
#include <QtTest>

#include <unistd.h>

using namespace runbox::npu;
using runbox::Error;
using runbox::tests::SimulatedNpuHost;

class TestNpuDeviceIsolation final : public QObject {
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

    /// Runs @p script with /bin/sh in a sandbox built from the base args + @p fragment.
    QString runInside(const QStringList& fragment, const QString& script, int* exitCode = nullptr) {
        QStringList args = ChipProbeOptions::defaultBaseArgs();
        args << fragment << "--tmpfs"
             << "/tmp"
             << "--ro-bind" << m_host->root() << m_host->root() // the fake npu-smi and its state
             << "--clearenv"
             << "--setenv"
             << "PATH"
             << "/usr/bin:/bin"
             << "--"
             << "/bin/sh"
             << "-c" << script;
        QProcess bwrap;
        bwrap.setProcessChannelMode(QProcess::MergedChannels);
        bwrap.start("bwrap", args);
        bwrap.waitForFinished(20000);
        if (exitCode)
            *exitCode = bwrap.exitCode();
        return QString::fromUtf8(bwrap.readAll());
    }

    static QStringList davinciNodes(const QString& listing) {
        QStringList nodes;
        for (const QString& name : listing.split('\n', Qt::SkipEmptyParts))
            if (name.startsWith("davinci"))
                nodes << name;
        return nodes;
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

    void testPositiveControlWholeDeviceTreeShowsEveryChip() {
        // The naive launch (the host's device tree at /dev) exposes all eight chips: the check
        // below would notice a leak.
        const QString listing = runInside({"--dev-bind", m_host->deviceRoot(), "/dev"}, "ls /dev");
        QCOMPARE(davinciNodes(listing).size(), 9); // davinci0..7 + davinci_manager
        QVERIFY(listing.contains("davinci7"));
    }

    void testOnlySelectedChipsAreVisibleRenumbered() {
        Error error;
        const NpuLaunchPlan plan = NpuPassthrough(config()).build({5, 2}, &error);
        QVERIFY2(!plan.isEmpty(), qPrintable(error.message));
        const QString listing = runInside(plan.bwrapArgs, "ls /dev");
        QCOMPARE(davinciNodes(listing), QStringList({"davinci0", "davinci1", "davinci_manager"}));
        QVERIFY(listing.contains("devmm_svm"));
        QVERIFY(listing.contains("hisi_hdc"));
        // Ascending host order: /dev/davinci0 is host chip 2, /dev/davinci1 is host chip 5.
        const QString inodes = runInside(plan.bwrapArgs, "stat -c %i /dev/davinci0 /dev/davinci1");
        QCOMPARE(inodes.split('\n', Qt::SkipEmptyParts),
                 QStringList(
                     {QString::number(m_host->inodeOf(2)), QString::number(m_host->inodeOf(5))}));
        // The nodes are usable, and ascend_install.info is there read-only.
        int exitCode = -1;
        runInside(plan.bwrapArgs,
                  "echo x > /dev/davinci1 && cat /etc/ascend_install.info >/dev/null"
                  " && ! echo y >> /etc/ascend_install.info 2>/dev/null",
                  &exitCode);
        QCOMPARE(exitCode, 0);
    }

    void testNoChipsMeansNoDavinciNodeAtAll() {
        Error error;
        const NpuLaunchPlan plan = NpuPassthrough(config()).build({}, &error);
        QVERIFY(plan.bwrapArgs.isEmpty());
        QCOMPARE(davinciNodes(runInside(plan.bwrapArgs, "ls /dev")), QStringList());
    }

    void testDriverEnumeratesOnlyWhatTheSandboxSees() {
        // The fake npu-smi inside lists the visible chips only...
        Error error;
        const NpuLaunchPlan plan = NpuPassthrough(config()).build({2, 5}, &error);
        int exitCode = -1;
        const QString mapping =
            runInside(plan.bwrapArgs, m_host->npuSmiPath() + " info -m", &exitCode);
        QCOMPARE(exitCode, 0);
        QVERIFY(mapping.contains("Ascend 910B3"));
        QCOMPARE(mapping.count("Ascend 910B3"), 2);
        // ...and one occupied chip among the visible ones fails the whole call: the reason a
        // sandbox must never see chips it was not given.
        m_host->setOccupied(5, true);
        const QString failed = runInside(plan.bwrapArgs, m_host->npuSmiPath() + " info", &exitCode);
        m_host->setOccupied(5, false);
        QVERIFY(exitCode != 0);
        QVERIFY(failed.contains("ret is -8020"));
    }
};

QTEST_GUILESS_MAIN(TestNpuDeviceIsolation)
#include "test_npu_device_isolation.moc"
