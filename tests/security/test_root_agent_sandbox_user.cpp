// No sandbox is host root (docs/contracts.md): under an agent that runs as root (as the light tier
// needs), every strong sandbox runs as an unprivileged host uid of its workspace. Real attacks from
// inside real sandboxes of a root agent: host sysctls, core_pattern, the host uid and capabilities
// of the sandboxed process, a fork loop against the process limit; and the workspace keeps
// working (files, sync and managed executions, the egress probe). Skipped when not root.
#include "support/AgentProcess.h"
#include "support/FileApiRaw.h"
#include "support/ManagedApi.h"
#include "support/RawHttp.h"

#include "shared/ApiClient.h"
#include "shared/RequestSigner.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

QByteArray readProc(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// The value of field @p name ("Uid", "CapEff"…) of /proc/<pid>/status.
QByteArray statusField(int pid, const QByteArray& name) {
    for (const QByteArray& line : readProc(QStringLiteral("/proc/%1/status").arg(pid)).split('\n'))
        if (line.startsWith(name + ':'))
            return line.mid(name.size() + 1).simplified();
    return {};
}

QString workspaceUid(ApiClient& client, const QString& id) {
    const ApiResponse r = client.call("GET", "/v1/workspaces");
    for (const QJsonValue& v : r.json().value(QLatin1String("workspaces")).toArray())
        if (v.toObject().value(QLatin1String("id")).toString() == id)
            return QString::number(v.toObject().value(QLatin1String("uid")).toInteger());
    return {};
}

} // namespace

class TestRootAgentSandboxUser final : public QObject {
    Q_OBJECT

    /// A root agent on this test's own uid range registry; with @p strongFirst, its own strong
    /// range and a small light range at @p lightFirst (a second agent of the host needs both).
    AgentOptions rootAgent(const QString& strongFirst = {}, const QString& lightFirst = {}) const {
        AgentOptions options;
        options.runAsRoot = true;
        options.extraEnv.insert(QStringLiteral("RUNBOX_UID_RANGE_REGISTRY"), m_registry.path());
        if (!strongFirst.isEmpty()) {
            options.extraEnv.insert(QStringLiteral("RUNBOX_STRONG_UID_FIRST"), strongFirst);
            options.extraEnv.insert(QStringLiteral("RUNBOX_LIGHT_UID_FIRST"), lightFirst);
            options.extraEnv.insert(QStringLiteral("RUNBOX_LIGHT_UID_COUNT"),
                                    QStringLiteral("100"));
        }
        return options;
    }

private Q_SLOTS:
    void initTestCase() {
        if (!AgentProcess::runningAsRoot())
            QSKIP("a root agent needs the test to run as root");
        QVERIFY2(m_agent.start(rootAgent()), qPrintable(m_agent.errorString()));
        m_ws = m_agent.createWorkspace(&m_wsToken);
        QVERIFY2(!m_ws.isEmpty(), qPrintable(m_agent.errorString() + m_agent.log()));
        m_other = m_agent.createWorkspace();
        QVERIFY(!m_other.isEmpty());
    }
    void cleanupTestCase() {
        if (m_agent.isRunning())
            QVERIFY2(m_agent.stop(), qPrintable(m_agent.log()));
    }

    void testHealthSaysSandboxesRunAsWorkspaceUids() {
        const ApiResponse r = m_agent.client()->call("GET", "/v1/health");
        const QJsonObject sandbox = r.json().value(QLatin1String("sandbox")).toObject();
        QVERIFY2(sandbox.value(QLatin1String("ready")).toBool(), r.body.constData());
        const QJsonObject user = sandbox.value(QLatin1String("sandboxUser")).toObject();
        QCOMPARE(user.value(QLatin1String("mode")).toString(), QStringLiteral("workspace-uid"));
        QVERIFY(user.value(QLatin1String("usable")).toBool());
        // The egress probe is a real launch as the probe uid: it still works.
        QVERIFY2(r.json().value(QLatin1String("egress")).toObject().value("available").toBool(),
                 r.body.constData());
    }

    void testWorkspacesHaveDistinctUnprivilegedUids() {
        const QString a = workspaceUid(*m_agent.client(), m_ws);
        const QString b = workspaceUid(*m_agent.client(), m_other);
        QVERIFY(!a.isEmpty() && !b.isEmpty());
        QVERIFY(a != b);
        QVERIFY(a.toLongLong() > 65535 && b.toLongLong() > 65535);
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(m_agent.workspaceDir(m_ws)).constData(), &st), 0);
        QCOMPARE(QString::number(st.st_uid), a);
        const ExecOutcome id = m_agent.shell(m_ws, QStringLiteral("id -u; id -g"));
        QVERIFY2(id.status() == QLatin1String("completed"), qPrintable(id.describe()));
        QCOMPARE(id.stdoutText(), a + '\n' + a + '\n');
    }

    void testSysctlWriteBackRefused() {
        const QString knob = QStringLiteral("/proc/sys/vm/dirty_expire_centisecs");
        const QByteArray before = readProc(knob);
        QVERIFY(!before.isEmpty());
        // Positive control: host root can write the value back to itself.
        {
            QFile f(knob);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QVERIFY(f.write(before) == before.size());
        }
        const ExecOutcome r = m_agent.shell(
            m_ws, QStringLiteral("v=$(cat %1) && echo \"$v\" > %1 && echo WROTE || echo REFUSED")
                      .arg(knob));
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        QCOMPARE(r.stdoutText(), QStringLiteral("REFUSED\n"));
        QCOMPARE(readProc(knob), before);
    }

    void testCorePatternUnwritable() {
        const QByteArray before = readProc(QStringLiteral("/proc/sys/kernel/core_pattern"));
        const ExecOutcome r = m_agent.shell(
            m_ws, QStringLiteral("echo '|/workspace/h.sh' > /proc/sys/kernel/core_pattern && "
                                 "echo WROTE || echo REFUSED; grep -c ' /proc/sys .*ro,' "
                                 "/proc/self/mountinfo"));
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        QCOMPARE(r.stdoutText(), QStringLiteral("REFUSED\n1\n"));
        QCOMPARE(readProc(QStringLiteral("/proc/sys/kernel/core_pattern")), before);
    }

    void testSandboxedProcessIsNotHostRootAndHoldsNoCapability() {
        const QByteArray marker = "runbox-uid-" + RequestSigner::newNonce().left(12);
        ExecStream* s = m_agent.execStreaming(
            m_ws, {{"kind", "shell"},
                   {"code", QStringLiteral("exec -a %1 sleep 30").arg(QString::fromLatin1(marker))},
                   {"executionTimeoutMs", 20000}});
        QList<int> pids;
        for (int i = 0; i < 500 && pids.isEmpty(); ++i) {
            QTest::qWait(20);
            pids = processesWithMarker(marker);
        }
        QVERIFY2(!pids.isEmpty(), "the sandboxed process never appeared");
        const QString uid = workspaceUid(*m_agent.client(), m_ws);
        for (int pid : pids) {
            const QList<QByteArray> ids = statusField(pid, "Uid").split(' ');
            QCOMPARE(ids.size(), 4);
            for (const QByteArray& id : ids)
                QCOMPARE(QString::fromLatin1(id), uid); // real, effective, saved, fs
            QCOMPARE(statusField(pid, "CapPrm"), QByteArray("0000000000000000"));
            QCOMPARE(statusField(pid, "CapEff"), QByteArray("0000000000000000"));
            QCOMPARE(statusField(pid, "CapInh"), QByteArray("0000000000000000"));
            QCOMPARE(statusField(pid, "CapAmb"), QByteArray("0000000000000000"));
            // Every ancestor up to the agent (bwrap, the guard) runs as that uid too.
            for (int p = pid; p > 1 && p != int(m_agent.pid());) {
                const QList<QByteArray> parts = statusField(p, "PPid").split(' ');
                const int parent = parts.value(0).toInt();
                if (parent == int(m_agent.pid()) || parent <= 1)
                    break;
                QVERIFY2(!statusField(parent, "Uid").startsWith("0\t") &&
                             !statusField(parent, "Uid").startsWith("0 "),
                         qPrintable(QStringLiteral("pid %1 runs as root").arg(parent)));
                p = parent;
            }
        }
        s->abort();
        delete s;
    }

    void testForkLoopStopsAtProcessLimitWhileOthersRun() {
        // Children sleep, the parent forks until the kernel refuses and reports how many it got.
        const QString code = QStringLiteral("import os, time\n"
                                            "n = 0\n"
                                            "try:\n"
                                            "    while n < 20000:\n"
                                            "        if os.fork() == 0:\n"
                                            "            time.sleep(30); os._exit(0)\n"
                                            "        n += 1\n"
                                            "except OSError as e:\n"
                                            "    print('refused', n, e.errno, flush=True)\n"
                                            "time.sleep(3)\n");
        ExecStream* bomb = m_agent.execStreaming(
            m_ws, {{"kind", "python"}, {"code", code}, {"executionTimeoutMs", 60000}});
        QVERIFY(bomb->waitForEvent(
            [](const QJsonObject& e) {
                return e.value(QLatin1String("type")).toString() == QLatin1String("stdout");
            },
            60000));
        // Meanwhile another workspace's execution still runs.
        const ExecOutcome other = m_agent.shell(m_other, QStringLiteral("true"));
        QVERIFY2(other.status() == QLatin1String("completed"), qPrintable(other.describe()));
        QVERIFY(bomb->waitForFinished(60000));
        const QStringList words = bomb->outcome().stdoutText().trimmed().split(' ');
        QCOMPARE(words.value(0), QStringLiteral("refused"));
        const int forked = words.value(1).toInt();
        QVERIFY2(forked >= 1000 && forked <= 4096, qPrintable(bomb->outcome().stdoutText()));
        QCOMPARE(words.value(2), QStringLiteral("11")); // EAGAIN: RLIMIT_NPROC
        delete bomb;
    }

    void testFilesStayWritableAcrossApiAndExecutions() {
        FileApiRaw files(m_agent.port(), m_agent.token());
        const QByteArray target = "/v1/workspaces/" + m_ws.toLatin1() + "/files/data.txt";
        const RawHttpResponse put = files.put(target, "uploaded\n");
        QVERIFY2(put.status == 201 || put.status == 200, put.body.constData());
        const QString uid = workspaceUid(*m_agent.client(), m_ws);
        for (const char* rel : {"data.txt"}) {
            struct stat st {};
            const QString path = m_agent.workspaceDir(m_ws) + '/' + QLatin1String(rel);
            QCOMPARE(::lstat(QFile::encodeName(path).constData(), &st), 0);
            QCOMPARE(QString::number(st.st_uid), uid);
        }
        const ExecOutcome r =
            m_agent.shell(m_ws, QStringLiteral("echo appended >> data.txt && mkdir -p out && "
                                               "cp data.txt out/copy.txt && echo ok"));
        QVERIFY2(r.stdoutText() == QLatin1String("ok\n"), qPrintable(r.describe()));
        const RawHttpResponse get =
            files.send("GET", "/v1/workspaces/" + m_ws.toLatin1() + "/files/out/copy.txt");
        QCOMPARE(get.status, 200);
        QCOMPARE(get.body, QByteArray("uploaded\nappended\n"));
    }

    void testManagedExecutionRunsAsWorkspaceUid() {
        const ApiResponse sub = submitExecution(*m_agent.client(), m_ws,
                                                {{"kind", "shell"}, {"code", "id -u; touch m"}});
        QVERIFY2(sub.status == 201 || sub.status == 202, sub.body.constData());
        const QString id = sub.json().value(QLatin1String("executionId")).toString();
        const QJsonObject rec = waitUntilFinal(*m_agent.client(), id);
        QCOMPARE(rec.value(QLatin1String("state")).toString(), QStringLiteral("completed"));
        const LogCapture log = readLog(*m_agent.client(), id, 0, false);
        QCOMPARE(QString::fromUtf8(log.stdoutBytes), workspaceUid(*m_agent.client(), m_ws) + '\n');
    }

    void testSetuidFileInAWorkspaceGivesHostUsersNothing() {
        const ExecOutcome made = m_agent.shell(
            m_ws, QStringLiteral("cp /usr/bin/id idsu && chmod 4755 idsu && chmod 711 /workspace "
                                 "&& ./idsu -u"));
        QVERIFY2(made.status() == QLatin1String("completed"), qPrintable(made.describe()));
        const QString path = m_agent.workspaceDir(m_ws) + QStringLiteral("/idsu");
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(path).constData(), &st), 0);
        QVERIFY(st.st_mode & S_ISUID); // control: the bit is really there
        QProcess run;
        run.start(QStringLiteral("/usr/bin/setpriv"),
                  {"--reuid=65534", "--regid=65534", "--clear-groups", path, "-u"});
        QVERIFY(run.waitForFinished(10000));
        QCOMPARE(run.exitCode(), 0); // nobody can run it: the attack path is open
        QCOMPARE(run.readAllStandardOutput().trimmed(), QByteArray("65534")); // but nosuid
        m_agent.shell(m_ws, QStringLiteral("rm idsu; chmod 700 /workspace"));
    }

    void testRunningExecutionIdCannotBeReusedForItsEgressSocket() {
        ApiClient& api = *m_agent.client();
        const ApiResponse set = api.call(
            "PUT", "/v1/settings/network-policy",
            QJsonObject{{"mode", "domain-allowlist"}, {"allowedDomains", QJsonArray{"a.example"}}});
        QVERIFY2(set.status == 200, set.body.constData());
        const QString id =
            QStringLiteral("shared-") + QString::fromLatin1(RequestSigner::newNonce().left(8));
        const ApiResponse b = submitExecution(
            api, m_other, {{"kind", "shell"}, {"code", "sleep 20"}, {"executionId", id}});
        QVERIFY2(b.status == 202, b.body.constData());
        waitForRecord(api, id, [](const QJsonObject& r) {
            return r.value(QLatin1String("state")).toString() == QLatin1String("running");
        });
        const ExecOutcome a =
            m_agent.shell(m_ws, QStringLiteral("echo ran"), QJsonObject{{"executionId", id}});
        QVERIFY2(a.stdoutText().isEmpty(), qPrintable(a.describe())); // refused, nothing ran
        QVERIFY2(a.httpStatus == 409 || a.status() == QLatin1String("setup_failed"),
                 qPrintable(a.describe()));
        // B's execution still holds its own socket, owned by B's uid.
        const QString ownerB = workspaceUid(api, m_other);
        bool found = false;
        for (const QFileInfo& sock : QDir(m_agent.stateDir() + QStringLiteral("/egress"))
                                         .entryInfoList({"*.sock"}, QDir::System))
            found = found || QString::number(sock.ownerId()) == ownerB;
        QVERIFY(found);
        api.call("POST", QStringLiteral("/v1/executions/%1/cancel").arg(id).toUtf8());
        waitUntilFinal(api, id);
        QCOMPARE(
            api.call("PUT", "/v1/settings/network-policy", QJsonObject{{"mode", "none"}}).status,
            200);
    }

    void testWorkspaceWithADeepTreeIsDeletedAndItsUidFreed() {
        QByteArray token;
        const QString ws = m_agent.createWorkspace(&token);
        const QString uid = workspaceUid(*m_agent.client(), ws);
        // 5000 levels: the path (10 KB) is past PATH_MAX, so no path-based walk can remove it.
        const ExecOutcome made = m_agent.python(
            ws,
            QStringLiteral("import os\nfor i in range(5000):\n    os.mkdir('d'); os.chdir('d')\n"
                           "open('bottom', 'w').write('x')\nos.chmod('.', 0o500)\n"
                           "print('deep')\n"));
        QVERIFY2(made.stdoutText() == QLatin1String("deep\n"), qPrintable(made.describe()));
        const ApiResponse del =
            m_agent.client()->call("DELETE", "/v1/workspaces/" + ws.toLatin1(), {}, 60000);
        QVERIFY2(del.status == 200 || del.status == 204, del.body.constData());
        QVERIFY(!QFileInfo::exists(m_agent.workspaceDir(ws)));
        // Its uid is free again: the next workspace gets it (lowest free first).
        const QString next = m_agent.createWorkspace();
        QCOMPARE(workspaceUid(*m_agent.client(), next), uid);
        m_agent.client()->call("DELETE", "/v1/workspaces/" + next.toLatin1());
    }

    void testUidIsStableAcrossRestart() {
        const QString before = workspaceUid(*m_agent.client(), m_ws);
        QVERIFY2(m_agent.stop(), qPrintable(m_agent.log()));
        QVERIFY2(m_agent.start(rootAgent()), qPrintable(m_agent.errorString()));
        QCOMPARE(workspaceUid(*m_agent.client(), m_ws), before);
        const ExecOutcome r = m_agent.shell(m_ws, QStringLiteral("echo again >> data.txt; id -u"));
        QCOMPARE(r.stdoutText(), before + '\n');
    }

    void testOverlappingSecondAgentFailsClosed() {
        AgentProcess second;
        QVERIFY2(second.start(rootAgent()), qPrintable(second.errorString()));
        const ApiResponse h = second.client()->call("GET", "/v1/health");
        const QJsonObject sandbox = h.json().value(QLatin1String("sandbox")).toObject();
        QVERIFY(!sandbox.value(QLatin1String("ready")).toBool());
        QVERIFY2(sandbox.value("sandboxUser")
                     .toObject()
                     .value("reason")
                     .toString()
                     .contains(QLatin1String("overlaps")),
                 h.body.constData());
        const QString ws = second.createWorkspace();
        if (!ws.isEmpty()) {
            const ExecOutcome r = second.shell(ws, QStringLiteral("id -u"));
            QCOMPARE(r.httpStatus, 503);
        }
        QVERIFY(second.stop());
        // Control: a disjoint range on the same registry works.
        AgentProcess third;
        QVERIFY2(third.start(rootAgent(QStringLiteral("1879200000"), QStringLiteral("1879400000"))),
                 qPrintable(third.errorString()));
        const QString ws3 = third.createWorkspace();
        QVERIFY(!ws3.isEmpty());
        const ExecOutcome r3 = third.shell(ws3, QStringLiteral("id -u"));
        QVERIFY2(r3.status() == QLatin1String("completed"), qPrintable(r3.describe()));
        QVERIFY(r3.stdoutText().startsWith(QLatin1String("18792")));
        QVERIFY(third.stop());
    }

    void testRootlessWorkspaceIsChownedAtUpgrade() {
        AgentProcess agent;
        QVERIFY2(agent.start(), qPrintable(agent.errorString())); // rootless (uid 65534)
        const QString ws = agent.createWorkspace();
        const ExecOutcome made = agent.shell(
            ws, QStringLiteral("mkdir -p d/e && echo x > d/e/f && ln -s /etc/hostname link && "
                               "echo ok"));
        QCOMPARE(made.stdoutText(), QStringLiteral("ok\n"));
        QVERIFY(agent.stop());
        struct stat hostname {};
        QCOMPARE(::lstat("/etc/hostname", &hostname), 0);

        QVERIFY2(agent.start(rootAgent(QStringLiteral("1879300000"), QStringLiteral("1879500000"))),
                 qPrintable(agent.errorString()));
        const QString uid = workspaceUid(*agent.client(), ws);
        QVERIFY(uid.toLongLong() >= 1879300001);
        for (const char* rel : {"", "/d", "/d/e", "/d/e/f", "/link"}) {
            struct stat st {};
            const QString path = agent.workspaceDir(ws) + QLatin1String(rel);
            QCOMPARE(::lstat(QFile::encodeName(path).constData(), &st), 0);
            QCOMPARE(QString::number(st.st_uid), uid);
        }
        struct stat after {};
        QCOMPARE(::lstat("/etc/hostname", &after), 0);
        QCOMPARE(after.st_uid, hostname.st_uid); // the link was not followed
        const ExecOutcome r =
            agent.shell(ws, QStringLiteral("echo y >> d/e/f && rm -r d && id -u"));
        QVERIFY2(r.status() == QLatin1String("completed"), qPrintable(r.describe()));
        QCOMPARE(r.stdoutText(), uid + '\n');
        QVERIFY(agent.stop());
    }

private:
    QTemporaryDir m_registry;
    AgentProcess m_agent;
    QString m_ws, m_other;
    QByteArray m_wsToken;
};

QTEST_GUILESS_MAIN(TestRootAgentSandboxUser)
#include "test_root_agent_sandbox_user.moc"
