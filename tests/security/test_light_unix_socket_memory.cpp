// Unix socket buffers count against a light execution's maxMemoryBytes (docs/bounds.md "Unix
// socket buffers"): code inside a real light workspace of a root agent fills ~2000 socketpairs
// (kernel memory no process RSS shows, up to ~1 GiB here) under a 512 MiB limit and ends
// memory_exceeded with a recorded peak below 1 GiB; the same code with 50 pairs under 4 GiB
// completes (positive control). Variants try to hide the buffers: every socket passed away in
// SCM_RIGHTS and closed (in flight only), the sockets made in a network namespace of their own
// (in a user namespace the workspace creates, when it may), writers closed after filling (their
// memory is no longer listed: charged as an upper bound, so the recorded peak is that bound).
// Between executions, a background process holding the same sockets is killed by the
// workspace's background bound (LightBackgroundBounds), 50 pairs are left alone.
#include "shared/ApiClient.h"
#include "support/AgentProcess.h"
#include "support/ExecStream.h"
#include "support/UnixSocketAttack.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

#include <unistd.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {
constexpr qint64 kMiB = qint64(1) << 20;
constexpr qint64 kLimit = 512 * kMiB;
constexpr qint64 kControlLimit = 4096 * kMiB;
constexpr int kAttackPairs = 2000;
constexpr int kControlPairs = 50;

} // namespace

class TestLightUnixSocketMemory final : public QObject {
    Q_OBJECT

    AgentProcess m_agent;
    QString m_ws;

    /// Runs Python @p code in the light workspace under @p limit; the exit event, with stdout
    /// and stderr tails.
    QJsonObject run(const QString& code, qint64 limit) {
        return runToExitEvent(
            m_agent.client(), m_ws,
            {{"kind", "python"}, {"code", code}, {"maxMemoryBytes", double(limit)}}, 180000);
    }

    /// Python that starts @p python detached in the background (its pid in bg.pid) and ends.
    static QString inBackground(const QString& python) {
        return QStringLiteral("import pathlib, subprocess\n"
                              "pathlib.Path('attack.py').write_text(%1)\n"
                              "p = subprocess.Popen(['python3', 'attack.py'], "
                              "start_new_session=True, stdin=subprocess.DEVNULL, "
                              "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
                              "pathlib.Path('bg.pid').write_text(str(p.pid))\n")
            .arg(pythonLiteral(python));
    }
    /// @p text as a Python string literal (JSON's escapes are Python's).
    static QString pythonLiteral(const QString& text) {
        return QString::fromUtf8(QJsonDocument(QJsonArray{text}).toJson(QJsonDocument::Compact))
            .mid(1)
            .chopped(1);
    }
    /// `lastBoundsKill` of the workspace in `GET /v1/workspaces`.
    QJsonValue lastBoundsKill() {
        for (const QJsonValue& v :
             m_agent.client()->call("GET", "/v1/workspaces").json().value("workspaces").toArray())
            if (v.toObject().value("id").toString() == m_ws)
                return v.toObject().value("lastBoundsKill");
        return QJsonValue::Undefined;
    }

    static QString attack(int pairs, const QString& mode, int waitS, bool ownNamespace) {
        const QString python = unixSocketAttack(pairs, mode, waitS);
        if (!ownNamespace)
            return python;
        // The same in a user + network namespace of its own, made from inside the workspace.
        return QStringLiteral("import subprocess, sys\n"
                              "sys.exit(subprocess.run(['unshare', '-Un', 'python3', '-c', "
                              "%1]).returncode)\n")
            .arg(QString::fromLatin1(
                     QJsonDocument(QJsonArray{python}).toJson(QJsonDocument::Compact))
                     .mid(1)
                     .chopped(1));
    }

private Q_SLOTS:
    void initTestCase() {
        if (::geteuid() != 0)
            QSKIP("light workspaces need root; run this test as root");
        AgentOptions root;
        root.runAsRoot = true;
        // Ranges of its own (other root agents' tests may run at the same time).
        root.extraEnv.insert(QStringLiteral("RUNBOX_STRONG_UID_FIRST"),
                             QStringLiteral("1879900000"));
        root.extraEnv.insert(QStringLiteral("RUNBOX_STRONG_UID_COUNT"), QStringLiteral("4096"));
        root.extraEnv.insert(QStringLiteral("RUNBOX_LIGHT_UID_FIRST"), QStringLiteral("53000"));
        root.extraEnv.insert(QStringLiteral("RUNBOX_LIGHT_UID_COUNT"), QStringLiteral("64"));
        QVERIFY2(m_agent.start(root), qPrintable(m_agent.errorString()));
        const QJsonObject health = m_agent.client()->call("GET", "/v1/health").json();
        if (!health.value("light").toObject().value("available").toBool())
            QSKIP(
                qPrintable(QStringLiteral("light tier unavailable here: %1")
                               .arg(health.value("light").toObject().value("reason").toString())));
        const QJsonArray blind = health.value("memory").toObject().value("blindSpots").toArray();
        qInfo("blind spots: %s", QJsonDocument(blind).toJson(QJsonDocument::Compact).constData());
        QVERIFY(QJsonDocument(blind).toJson().contains("unix socket buffers count (sock_diag)"));
        const ApiResponse created =
            m_agent.client()->call("POST", "/v1/workspaces", {{"isolation", "light"}}, 60000);
        QCOMPARE(created.status, 201);
        m_ws =
            created.json().value("workspaces").toArray().first().toObject().value("id").toString();
        QVERIFY(!m_ws.isEmpty());
    }

    void testSocketBuffersAreBounded_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<bool>("ownNamespace");
        QTest::newRow("socketpairs, both ends open") << "open" << false;
        QTest::newRow("writers closed after filling") << "closed" << false;
        QTest::newRow("sockets only in flight (SCM_RIGHTS)") << "inflight" << false;
        QTest::newRow("in a network namespace of its own") << "open" << true;
    }

    void testSocketBuffersAreBounded() {
        QFETCH(QString, mode);
        QFETCH(bool, ownNamespace);
        if (ownNamespace) {
            const QJsonObject probe = run("import subprocess, sys\n"
                                          "sys.exit(subprocess.run(['unshare', '-Un', "
                                          "'true']).returncode)\n",
                                          kControlLimit);
            if (probe.value("status").toString() != QLatin1String("completed"))
                QSKIP(qPrintable("the workspace may not make a user namespace here: " +
                                 probe.value("stderr").toString()));
        }
        // Positive control: 50 pairs fit under 4 GiB.
        const QJsonObject control =
            run(attack(kControlPairs, mode, 0, ownNamespace), kControlLimit);
        QVERIFY2(control.value("status").toString() == QLatin1String("completed") &&
                     control.value("stdout").toString().contains("filled"),
                 qPrintable(QJsonDocument(control).toJson()));

        const QJsonObject r = run(attack(kAttackPairs, mode, 60, ownNamespace), kLimit);
        const qint64 peak = r.value("usage").toObject().value("peakMemoryBytes").toInteger(-1);
        qInfo("%s%s: %s, peak %lld MiB under %lld MiB: %s", qPrintable(mode),
              ownNamespace ? " (own netns)" : "", qPrintable(r.value("status").toString()),
              peak / kMiB, kLimit / kMiB, qPrintable(r.value("reason").toString()));
        QCOMPARE(r.value("status").toString(), QStringLiteral("memory_exceeded"));
        const QString reason = r.value("reason").toString();
        QVERIFY2(reason.contains("unix socket buffers"), qPrintable(reason));
        QVERIFY2(peak > kLimit, qPrintable(QString::number(peak)));
        if (mode == QLatin1String("closed"))
            QVERIFY2(reason.contains("upper bound"), qPrintable(reason));
        else
            QVERIFY2(peak < 1024 * kMiB, qPrintable(QString::number(peak)));
        // The workspace runs normally afterwards.
        QCOMPARE(run("print('fine')", kLimit).value("status").toString(),
                 QStringLiteral("completed"));
    }

    /// Between executions: the same sockets held by a background process count against the
    /// workspace's background bound (the settings' maxMemoryBytes); 50 pairs stay alive.
    void testBackgroundSocketsAreBoundedBetweenExecutions() {
        QCOMPARE(m_agent.client()
                     ->call("PUT", "/v1/settings/quotas", {{"maxMemoryBytes", double(kLimit)}})
                     .status,
                 200);
        const QString isAlive = "import os, pathlib, sys\n"
                                "try: os.kill(int(pathlib.Path('bg.pid').read_text()), 0)\n"
                                "except ProcessLookupError: sys.exit(3)\n"
                                "sys.exit(0 if os.path.exists('filled') else 4)\n";
        const QString stop = "import os, pathlib, signal\n"
                             "os.kill(int(pathlib.Path('bg.pid').read_text()), signal.SIGKILL)\n"
                             "pathlib.Path('filled').unlink(missing_ok=True)\n";
        // Positive control: 50 pairs in the background are left alone.
        QCOMPARE(run(inBackground(attack(kControlPairs, "open", 120, false)), kLimit)
                     .value("status")
                     .toString(),
                 QStringLiteral("completed"));
        QTest::qWait(1500); // a dozen scans of the watchdog
        QVERIFY(lastBoundsKill().isNull());
        const QJsonObject alive = run(isAlive, kLimit);
        QVERIFY2(alive.value("status").toString() == QLatin1String("completed"),
                 qPrintable(QJsonDocument(alive).toJson())); // alive, and it had filled them
        QCOMPARE(run(stop, kLimit).value("status").toString(), QStringLiteral("completed"));

        QCOMPARE(run(inBackground(attack(kAttackPairs, "open", 120, false)), kLimit)
                     .value("status")
                     .toString(),
                 QStringLiteral("completed"));
        QTRY_VERIFY_WITH_TIMEOUT(lastBoundsKill().isObject(), 30000);
        const QJsonObject kill = lastBoundsKill().toObject();
        qInfo("background: %s", QJsonDocument(kill).toJson(QJsonDocument::Compact).constData());
        QCOMPARE(kill.value("bound").toString(), QStringLiteral("memory"));
        QVERIFY(kill.value("usedBytes").toInteger() < 1024 * kMiB);
        QCOMPARE(run(isAlive, kLimit).value("exitCode").toInt(), 3);
    }

    void cleanupTestCase() {
        if (!m_ws.isEmpty())
            m_agent.client()->call("DELETE", "/v1/workspaces/" + m_ws.toUtf8());
    }
};

QTEST_GUILESS_MAIN(TestLightUnixSocketMemory)
#include "test_light_unix_socket_memory.moc"
