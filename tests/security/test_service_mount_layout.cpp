// The hardening of installer/systemd/runbox-agent.service leaves bubblewrap working (docs/
// service.md "Hardening"): with the unit's mounts made by hand (service_mount_layout.sh under
// `unshare -m`: ProtectSystem=strict, ProtectHome=yes, PrivateTmp=yes, ProtectKernelModules=yes),
// no capability (CapabilityBoundingSet=) and no_new_privs (NoNewPrivileges=yes), the agent's
// probe still concludes that /proc is a fresh procfs, and a strong execution runs. Positive
// control: the same layout plus what ProtectKernelTunables=yes does to /proc/sys makes the probe
// fall back to a /proc bind, so the check can fail. Needs root (mounts); skips otherwise.
#include "shared/ApiClient.h"
#include "support/AgentProcess.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

/// The /proc/<pid>/mountinfo line of @p point (field 5), or "".
QByteArray mountLine(qint64 pid, const QByteArray& point) {
    QFile file(QStringLiteral("/proc/%1/mountinfo").arg(pid));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QByteArray found;
    for (const QByteArray& line : file.readAll().split('\n'))
        if (line.split(' ').value(4) == point)
            found = line; // the last one is on top
    return found;
}

} // namespace

class TestServiceMountLayout final : public QObject {
    Q_OBJECT

    /// Where StateDirectory= would be (/var/lib/...) and the private /tmp.
    std::unique_ptr<QTemporaryDir> m_stateParent;
    std::unique_ptr<QTemporaryDir> m_privateTmp;

    AgentOptions layoutOptions(bool tunables) const {
        AgentOptions options;
        options.stateParentDir = m_stateParent->path();
        options.launchWrapper = {
            QStringLiteral("/usr/bin/unshare"), QStringLiteral("-m"),
            QStringLiteral(RUNBOX_SOURCE_DIR "/tests/security/service_mount_layout.sh"),
            m_stateParent->path(), m_privateTmp->path()};
        if (tunables)
            options.launchWrapper << QStringLiteral("tunables");
        options.launchWrapper << QStringLiteral("--");
        // CapabilityBoundingSet= (empty) and NoNewPrivileges=yes.
        options.setprivArgs = {QStringLiteral("--no-new-privs"), QStringLiteral("--bounding-set"),
                               QStringLiteral("-all")};
        return options;
    }

private Q_SLOTS:
    void initTestCase() {
        if (!AgentProcess::runningAsRoot())
            QSKIP("needs root: the unit's mounts are made in a mount namespace of the test's");
        // PrivateTmp= and ProtectHome= hide these trees from the service, as they would hide an
        // agent installed there: a build below them cannot be started under the layout.
        const QString build = QCoreApplication::applicationDirPath() + QLatin1Char('/');
        for (const char* hidden : {"/tmp/", "/var/tmp/", "/home/", "/root/", "/run/user/"})
            if (build.startsWith(QLatin1String(hidden)))
                QSKIP(qPrintable(QStringLiteral("the build (%1) is below %2, which the unit's "
                                                "layout hides: build elsewhere to run this test")
                                     .arg(build, QLatin1String(hidden))));
        m_stateParent =
            std::make_unique<QTemporaryDir>(QStringLiteral("/var/lib/runbox-layout-XXXXXX"));
        m_privateTmp =
            std::make_unique<QTemporaryDir>(QStringLiteral("/var/tmp/runbox-private-tmp-XXXXXX"));
        QVERIFY(m_stateParent->isValid() && m_privateTmp->isValid());
        // The agent's uid must reach its state dir below the parent; /tmp is world-writable.
        QCOMPARE(::chmod(QFile::encodeName(m_stateParent->path()).constData(), 0711), 0);
        QCOMPARE(::chmod(QFile::encodeName(m_privateTmp->path()).constData(), 01777), 0);
    }

    void testControlProtectKernelTunablesLosesTheFreshProc() {
        AgentProcess agent;
        QVERIFY2(agent.start(layoutOptions(true)), qPrintable(agent.errorString()));
        const ApiResponse health = agent.client()->call("GET", "/v1/health", {}, 30000);
        QCOMPARE(health.status, 200);
        const QJsonObject sandbox = health.json().value("sandbox").toObject();
        QVERIFY2(sandbox.value("procMode").toString() != QLatin1String("new"),
                 QJsonDocument(sandbox).toJson().constData());
        QVERIFY(mountLine(agent.pid(), "/proc/sys").contains(" ro,"));
    }

    void testProbeFindsAFreshProcAndAStrongExecutionRuns() {
        AgentProcess agent;
        QVERIFY2(agent.start(layoutOptions(false)), qPrintable(agent.errorString()));
        // The agent really runs under the layout: / read-only, private /tmp, empty /home.
        const QByteArray root = mountLine(agent.pid(), "/");
        QVERIFY2(root.contains(" ro,") || root.contains(" ro "), root.constData());
        QVERIFY2(mountLine(agent.pid(), "/tmp").contains(" rw"), "no private /tmp");
        if (QFileInfo(QStringLiteral("/home")).isDir())
            QVERIFY(mountLine(agent.pid(), "/home").contains("inaccessible"));
        QFile status(QStringLiteral("/proc/%1/status").arg(agent.pid()));
        QVERIFY(status.open(QIODevice::ReadOnly));
        const QByteArray fields = status.readAll();
        QVERIFY2(fields.contains("CapBnd:\t0000000000000000") && fields.contains("NoNewPrivs:\t1"),
                 fields.constData());

        const ApiResponse health = agent.client()->call("GET", "/v1/health", {}, 30000);
        QCOMPARE(health.status, 200);
        const QJsonObject sandbox = health.json().value("sandbox").toObject();
        QCOMPARE(sandbox.value("procMode").toString(), QStringLiteral("new"));
        QCOMPARE(sandbox.value("usable").toBool(), true);

        const QString ws = agent.createWorkspace();
        QVERIFY2(!ws.isEmpty(), qPrintable(agent.errorString()));
        // A fresh procfs shows the sandbox's own processes only.
        const ExecOutcome run =
            agent.shell(ws, QStringLiteral("echo ran; ls /proc | grep -c '^[0-9]'"));
        QVERIFY2(run.status() == QLatin1String("completed"), qPrintable(run.describe()));
        const QList<QByteArray> lines = run.stdoutBytes.trimmed().split('\n');
        QCOMPARE(lines.value(0), QByteArray("ran"));
        QVERIFY2(lines.value(1).toInt() > 0 && lines.value(1).toInt() <= 4,
                 run.stdoutBytes.constData());
        QVERIFY2(agent.stop(), qPrintable(agent.log()));
    }
};

QTEST_GUILESS_MAIN(TestServiceMountLayout)
#include "test_service_mount_layout.moc"
