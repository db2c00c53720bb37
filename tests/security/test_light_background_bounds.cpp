// Light workspaces between executions (docs/bounds.md "Light workspaces between executions"):
// processes an exec leaves running are bounded by the settings' maxMemoryBytes and
// maxWorkspaceBytes while no execution runs, killed past them, the workspace says why
// (`lastBoundsKill`), and the next execution is not blamed; while they stay within the bounds
// they survive and count against the next execution, whose reason then says so. A request's
// maxProcesses is its exec's RLIMIT_NPROC. Real attacks from real workspaces of a root agent,
// each after a positive control.
#include "LightAgentFixture.h"

#include "support/HostProcesses.h"

#include <QtTest>

using namespace lightagent;
namespace ts = runbox::testsupport;

namespace {
constexpr qint64 kMiB = qint64(1) << 20;
constexpr qint64 kMemoryLimit = 512 * kMiB;
constexpr qint64 kDiskLimit = 1 * kMiB;

/// Starts @p python in the background (pid in bg.pid) and returns at once.
QString background(const QString& python) {
    return QStringLiteral("nohup python3 -c \"%1\" >/dev/null 2>&1 & echo $! > bg.pid").arg(python);
}
/// Allocates @p mib MiB (every page written), touches `ready`, then sleeps.
QString holder(int mib) {
    return QStringLiteral("import time, pathlib; b = b'x' * (%1 << 20); "
                          "pathlib.Path('ready').touch(); time.sleep(120)")
        .arg(mib);
}
/// Allocates ~2 GiB slowly: 16 MiB every 50 ms (the workspace's RLIMIT_AS is 2 GiB).
const char kSlowAllocator[] = "import time\nb = []\nfor i in range(120): b.append(b'x' * (16 << "
                              "20)); time.sleep(0.05)\ntime.sleep(120)";
/// Forks up to 50 children that wait on a pipe; prints how many it made and the errno it met.
const char kForkLoop[] = "import os\nr, w = os.pipe()\npids = []\nerr = 0\nfor i in range(50):\n"
                         "    try:\n        pid = os.fork()\n    except OSError as e:\n"
                         "        err = e.errno\n        break\n    if pid == 0:\n"
                         "        os.close(w); os.read(r, 1); os._exit(0)\n    pids.append(pid)\n"
                         "os.close(w)\nfor p in pids: os.waitpid(p, 0)\nprint(len(pids), err)";
const char kIsAlive[] = "kill -0 $(cat bg.pid) 2>/dev/null && echo alive || echo gone";
} // namespace

class TestLightBackgroundBounds final : public QObject {
    Q_OBJECT

private:
    Agent m_agent;

    bool setQuotas(const QJsonObject& patch) {
        return m_agent.client().call("PUT", "/v1/settings/quotas", patch).status == 200;
    }
    QJsonObject backgroundHealth() {
        return m_agent.client()
            .call("GET", "/v1/health")
            .json()
            .value("light")
            .toObject()
            .value("backgroundBounds")
            .toObject();
    }
    /// `lastBoundsKill` of @p id in `GET /v1/workspaces` (null when none, undefined if unlisted).
    QJsonValue lastKill(const QString& id) {
        for (const QJsonValue& v :
             m_agent.client().call("GET", "/v1/workspaces").json().value("workspaces").toArray())
            if (v.toObject().value("id").toString() == id)
                return v.toObject().value("lastBoundsKill");
        return QJsonValue::Undefined;
    }
    /// The workspace's processes on the host besides its supervisor.
    static int processesBesidesSupervisor(const Workspace& ws) {
        int n = 0;
        for (const ts::HostProcess& p : ts::HostProcesses::ofUid(ws.uid))
            if (p.state != 'Z' && !p.cmdline.contains("runbox-light-supervisor"))
                ++n;
        return n;
    }
    /// Waits until the background process of @p ws has made `ready` and is watched.
    bool waitReadyAndWatched(const Workspace& ws) {
        return waitUntil([&] { return QFile::exists(ws.home + QStringLiteral("/ready")); }) &&
               waitUntil([&] { return backgroundHealth().value("watching").toInt() > 0; });
    }
    /// Kills the process of bg.pid; true once the workspace has no other process left.
    bool stopBackground(const Workspace& ws) {
        return sh(m_agent.client(), ws.id, "kill -9 $(cat bg.pid); rm -f ready").status() ==
                   QLatin1String("completed") &&
               waitUntil([&] { return processesBesidesSupervisor(ws) == 0; });
    }

private Q_SLOTS:
    void initTestCase() {
        if (::geteuid() != 0)
            QSKIP("light workspaces need root (setuid/chown); run this test as root");
        QString error;
        QVERIFY2(m_agent.start({{QStringLiteral("RUNBOX_LIGHT_UID_FIRST"), QStringLiteral("54000")},
                                {QStringLiteral("RUNBOX_LIGHT_UID_COUNT"), QStringLiteral("200")}},
                               &error),
                 qPrintable(error));
        const QJsonObject light =
            m_agent.client().call("GET", "/v1/health").json().value("light").toObject();
        if (!light.value("available").toBool())
            QSKIP(qPrintable(QStringLiteral("light tier unavailable here: %1")
                                 .arg(light.value("reason").toString())));
        QVERIFY(light.contains("backgroundBounds"));
    }

    void init() {
        QVERIFY(setQuotas({{"maxMemoryBytes", double(kMemoryLimit)},
                           {"maxWorkspaceBytes", double(10 * 1024 * kMiB)}}));
    }

    /// Positive control: 100 MiB left running stays, watched, for the next exec; then 2 GiB
    /// allocated slowly by a background process is killed with no execution running, the
    /// workspace says why, and the next exec runs clean.
    void testBackgroundAllocatorIsKilledBetweenExecutions() {
        const Workspace ws = m_agent.createOne();
        QVERIFY(!ws.id.isEmpty());
        QCOMPARE(sh(m_agent.client(), ws.id, background(holder(100))).status(),
                 QStringLiteral("completed"));
        QVERIFY(waitReadyAndWatched(ws));
        QTest::qWait(1500); // a dozen scans of the watchdog
        QVERIFY(lastKill(ws.id).isNull());
        Outcome alive = sh(m_agent.client(), ws.id, kIsAlive);
        QCOMPARE(alive.status(), QStringLiteral("completed"));
        QCOMPARE(alive.out, QByteArray("alive\n"));
        QVERIFY(stopBackground(ws));

        const int killsBefore = backgroundHealth().value("kills").toInt();
        const Outcome started = sh(m_agent.client(), ws.id, background(kSlowAllocator));
        QCOMPARE(started.status(), QStringLiteral("completed"));
        QElapsedTimer sinceExec;
        sinceExec.start();
        QVERIFY2(waitUntil([&] { return lastKill(ws.id).isObject(); }, 30000),
                 qPrintable(m_agent.log().right(2000)));
        const QJsonObject kill = lastKill(ws.id).toObject();
        qInfo("killed %lld ms after its exec returned (16 MiB per 50 ms pass 512 MiB after "
              "~1.6 s): %s",
              sinceExec.elapsed(), QJsonDocument(kill).toJson(QJsonDocument::Compact).constData());
        QCOMPARE(kill.value("bound").toString(), QStringLiteral("memory"));
        QVERIFY(kill.value("reason").toString().contains("maxMemoryBytes"));
        QCOMPARE(kill.value("limitBytes").toInteger(), kMemoryLimit);
        QVERIFY(kill.value("usedBytes").toInteger() > kMemoryLimit);
        QVERIFY(kill.value("usedBytes").toInteger() < 1536 * kMiB); // stopped well before 2 GiB
        QVERIFY(!kill.value("at").toString().isEmpty());
        QVERIFY(backgroundHealth().value("kills").toInt() > killsBefore);
        QVERIFY(m_agent.log().contains("warning: light workspace " + ws.id));
        QVERIFY2(waitUntil([&] { return processesBesidesSupervisor(ws) == 0; }),
                 ts::HostProcesses::describe(ts::HostProcesses::ofUid(ws.uid)).constData());

        const Outcome next = sh(m_agent.client(), ws.id, "echo ok");
        QVERIFY2(next.status() == QLatin1String("completed"), qPrintable(next.describe()));
        QCOMPARE(next.out, QByteArray("ok\n"));
        QCOMPARE(sh(m_agent.client(), ws.id, kIsAlive).out, QByteArray("gone\n"));
    }

    /// Within the bounds, background processes count against the next execution (the bound is
    /// the workspace's memory): 300 MiB alone completes, next to 300 MiB left running it ends
    /// memory_exceeded and the reason says why; the background process survives.
    void testBackgroundWithinBoundsCountsAgainstTheNextExecution() {
        const Workspace ws = m_agent.createOne();
        QVERIFY(!ws.id.isEmpty());
        const QString exec300 = QStringLiteral("python3 -c \"b = b'x' * (300 << 20)\"");
        const Outcome alone = sh(m_agent.client(), ws.id, exec300);
        QVERIFY2(alone.status() == QLatin1String("completed"), qPrintable(alone.describe()));

        QCOMPARE(sh(m_agent.client(), ws.id, background(holder(300))).status(),
                 QStringLiteral("completed"));
        QVERIFY(waitReadyAndWatched(ws));
        QTest::qWait(500); // the watch's scans saw it
        const Outcome beside = sh(m_agent.client(), ws.id,
                                  QStringLiteral("python3 -c \"import time; b = b'x' * (300 << "
                                                 "20); time.sleep(60)\""));
        QVERIFY2(beside.status() == QLatin1String("memory_exceeded"),
                 qPrintable(beside.describe()));
        const QString reason = beside.exit.value("reason").toString();
        qInfo("reason: %s", qPrintable(reason));
        QVERIFY(reason.contains("left running by earlier executions"));
        QTest::qWait(1000);
        QVERIFY(lastKill(ws.id).isNull());
        QCOMPARE(sh(m_agent.client(), ws.id, kIsAlive).out, QByteArray("alive\n"));
        QVERIFY(stopBackground(ws));
    }

    /// Positive control: a background writer within maxWorkspaceBytes stays; one past it is
    /// killed, and the next exec gets the usual 413 until the file is deleted.
    void testBackgroundWriterIsKilledAtTheQuota() {
        QVERIFY(setQuotas({{"maxWorkspaceBytes", double(kDiskLimit)}}));
        const Workspace ws = m_agent.createOne();
        QVERIFY(!ws.id.isEmpty());
        QCOMPARE(sh(m_agent.client(), ws.id,
                    "nohup sh -c 'head -c 262144 /dev/zero > small; touch ready; exec sleep 120' "
                    ">/dev/null 2>&1 & echo $! > bg.pid")
                     .status(),
                 QStringLiteral("completed"));
        QVERIFY(waitReadyAndWatched(ws));
        QTest::qWait(1000);
        QVERIFY(lastKill(ws.id).isNull());
        QCOMPARE(sh(m_agent.client(), ws.id, kIsAlive).out, QByteArray("alive\n"));
        QVERIFY(stopBackground(ws));
        QCOMPARE(sh(m_agent.client(), ws.id, "rm -f small").status(), QStringLiteral("completed"));

        QCOMPARE(sh(m_agent.client(), ws.id,
                    "nohup sh -c 'while :; do head -c 65536 /dev/zero >> big; sleep 0.05; done' "
                    ">/dev/null 2>&1 & echo $! > bg.pid")
                     .status(),
                 QStringLiteral("completed"));
        QVERIFY2(waitUntil([&] { return lastKill(ws.id).isObject(); }, 30000),
                 qPrintable(m_agent.log().right(2000)));
        const QJsonObject kill = lastKill(ws.id).toObject();
        qInfo("killed: %s", QJsonDocument(kill).toJson(QJsonDocument::Compact).constData());
        QCOMPARE(kill.value("bound").toString(), QStringLiteral("disk"));
        QVERIFY(kill.value("reason").toString().contains("maxWorkspaceBytes"));
        QVERIFY(waitUntil([&] { return processesBesidesSupervisor(ws) == 0; }));
        const qint64 size = QFileInfo(ws.home + QStringLiteral("/big")).size();
        QTest::qWait(300);
        QCOMPARE(QFileInfo(ws.home + QStringLiteral("/big")).size(), size); // nobody writes
        qInfo("left on disk: %lld KiB under a %lld KiB quota", size >> 10, kDiskLimit >> 10);

        const Outcome refused = sh(m_agent.client(), ws.id, "echo ok");
        QCOMPARE(refused.httpStatus, 413);
        QCOMPARE(refused.errorCode(), QStringLiteral("workspace_quota_exceeded"));
        QCOMPARE(m_agent.client()
                         .call("DELETE", "/v1/workspaces/" + ws.id.toUtf8() + "/files/big")
                         .status /
                     100,
                 2);
        const Outcome next = sh(m_agent.client(), ws.id, "echo ok");
        QVERIFY2(next.status() == QLatin1String("completed"), qPrintable(next.describe()));
    }

    /// A request's maxProcesses is its exec's RLIMIT_NPROC: 50 forks without it, EAGAIN near
    /// 20 with 20 (the uid's supervisor, shepherd and the loop itself count too).
    void testRequestMaxProcessesBindsTheExec() {
        const Workspace ws = m_agent.createOne();
        QVERIFY(!ws.id.isEmpty());
        const QJsonObject loop{{"argv", QJsonArray{"python3", "-c", kForkLoop}}};
        const Outcome free = exec(m_agent.client(), ws.id, loop);
        QVERIFY2(free.status() == QLatin1String("completed"), qPrintable(free.describe()));
        QCOMPARE(free.out, QByteArray("50 0\n"));

        QJsonObject bounded = loop;
        bounded.insert("maxProcesses", 20);
        const Outcome limited = exec(m_agent.client(), ws.id, bounded);
        QVERIFY2(limited.status() == QLatin1String("completed"), qPrintable(limited.describe()));
        const QList<QByteArray> fields = limited.out.trimmed().split(' ');
        QCOMPARE(fields.size(), 2);
        qInfo("maxProcesses 20: %d forks, errno %d", fields[0].toInt(), fields[1].toInt());
        QVERIFY(fields[0].toInt() >= 10 && fields[0].toInt() < 20);
        QCOMPARE(fields[1].toInt(), EAGAIN);
    }
};

QTEST_GUILESS_MAIN(TestLightBackgroundBounds)
#include "test_light_background_bounds.moc"
