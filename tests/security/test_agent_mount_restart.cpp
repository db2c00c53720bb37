// A root agent's nosuid,nodev bind mounts over workspaces/ and light/ (sandbox::NoSuidMount,
// docs/contracts.md "Sandbox uids"): a clean stop detaches them; after a SIGKILL (as the OOM
// killer would) the next start adopts the ones it made (its markers in its own state directory)
// and detaches them at its own clean stop, never stacking a second mount; an operator's own
// mount point there is left mounted, even with a marker planted beside it by someone who can
// write its parent.
#include "support/AgentMounts.h"
#include "support/AgentProcess.h"

#include <QDir>
#include <QFile>
#include <QTest>

#include <sys/mount.h>

using namespace runbox::testsupport;

namespace {

/// How many mounts have @p path as their mount point (/proc/self/mountinfo, field 5).
/// The agent's mount markers in @p stateDir.
QStringList markers(const QString& stateDir) {
    return QDir(stateDir).entryList({QStringLiteral("nosuid-*.mount")}, QDir::Files | QDir::Hidden);
}

int mountsAt(const QString& path) {
    QFile info(QStringLiteral("/proc/self/mountinfo"));
    if (!info.open(QIODevice::ReadOnly))
        return -1;
    int n = 0;
    for (const QByteArray& line : info.readAll().split('\n'))
        n += line.split(' ').value(4) == QFile::encodeName(path) ? 1 : 0;
    return n;
}

AgentOptions rootAgent() {
    AgentOptions o;
    o.runAsRoot = true;
    // Ranges of its own: other root agents' tests may run at the same time.
    o.extraEnv.insert(QStringLiteral("RUNBOX_STRONG_UID_FIRST"), QStringLiteral("1893000000"));
    o.extraEnv.insert(QStringLiteral("RUNBOX_STRONG_UID_COUNT"), QStringLiteral("4096"));
    o.extraEnv.insert(QStringLiteral("RUNBOX_LIGHT_UID_FIRST"), QStringLiteral("58300"));
    o.extraEnv.insert(QStringLiteral("RUNBOX_LIGHT_UID_COUNT"), QStringLiteral("64"));
    return o;
}

} // namespace

class TestAgentMountRestart final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        if (!AgentProcess::runningAsRoot())
            QSKIP("needs root for a root agent");
    }

    void testACrashedAgentsMountsAreDetachedByTheNextCleanStop() {
        AgentProcess agent;
        QVERIFY2(agent.start(rootAgent()), qPrintable(agent.errorString() + agent.log()));
        const QString workspaces = QDir(agent.stateDir() + "/workspaces").canonicalPath();
        QCOMPARE(mountsAt(workspaces), 1); // positive control: the agent's mount is there
        QVERIFY(!markers(agent.stateDir()).isEmpty());

        agent.kill(); // SIGKILL: nothing detached
        QCOMPARE(mountsAt(workspaces), 1);
        QVERIFY2(agent.start(rootAgent()), qPrintable(agent.errorString() + agent.log()));
        QCOMPARE(mountsAt(workspaces), 1); // adopted, not stacked
        QVERIFY(!agent.createWorkspace().isEmpty());
        QVERIFY(agent.stop());
        QCOMPARE(mountsAt(workspaces), 0);
        QCOMPARE(mountsAt(QDir(agent.stateDir() + "/light").canonicalPath()), 0);
        QVERIFY2(markers(agent.stateDir()).isEmpty(),
                 qPrintable(markers(agent.stateDir()).join(' ')));
    }

    void testAnOperatorsMountPointIsLeftMounted() {
        AgentProcess agent;
        QVERIFY2(agent.start(rootAgent()), qPrintable(agent.errorString() + agent.log()));
        const QString workspaces = QDir(agent.stateDir() + "/workspaces").canonicalPath();
        QVERIFY(agent.stop());
        QCOMPARE(mountsAt(workspaces), 0);
        // The operator mounts something of their own there (here a tmpfs), without a marker.
        QCOMPARE(::mount("tmpfs", QFile::encodeName(workspaces).constData(), "tmpfs", 0,
                         "size=16m,mode=0711"),
                 0);
        // Someone who may write the parent plants a marker beside it (and a link as one), as an
        // agent that kept its markers there would have trusted.
        for (const QString& planted : {workspaces + ".mounted", workspaces + ".mount"}) {
            QFile f(planted);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QFile::encodeName(workspaces) + '\n');
        }
        QVERIFY2(agent.start(rootAgent()), qPrintable(agent.errorString() + agent.log()));
        QVERIFY(!agent.createWorkspace().isEmpty());
        QVERIFY(agent.stop());
        QCOMPARE(mountsAt(workspaces), 1); // still the operator's
        detachAgentMounts(agent.stateDir());
        QCOMPARE(mountsAt(workspaces), 0);
    }
};

QTEST_GUILESS_MAIN(TestAgentMountRestart)
#include "test_agent_mount_restart.moc"
