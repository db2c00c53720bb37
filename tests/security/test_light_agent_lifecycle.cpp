// Light workspaces' lifetime through the real agent's HTTP API (docs/light-workspaces.md), the
// agent running as root: setsid'd descendants survive neither a timeout nor a delete, a delete
// cancels a running exec, idle workspaces are evicted only once nothing runs, short execs never
// lose trailing output, a batch past capacity reports what it rejected, workspace env is never
// stored, and an unavailable tier answers 503 while the strong tier still works. Each check
// starts with a positive control. Isolation between workspaces: test_light_agent.
#include "LightAgentFixture.h"
#include "LightTestSupport.h"

#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QtTest>

using namespace lightagent;

namespace {

QByteArray seqBytes(int n) {
    QByteArray out;
    for (int i = 1; i <= n; ++i)
        out += QByteArray::number(i) + '\n';
    return out;
}

QList<pid_t> sleepersOf(uid_t uid) {
    return lighttest::processesOf(uid, "sleep 1000");
}

} // namespace

class TestLightAgentLifecycle final : public QObject {
    Q_OBJECT

private:
    Agent m_agent;
    Workspace m_a, m_b;

private Q_SLOTS:
    void initTestCase() {
        QString error;
        const QString skip = m_agent.startWithTwoWorkspaces(43500, 500, &m_a, &m_b, &error);
        if (!skip.isEmpty())
            QSKIP(qPrintable(skip));
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void testSetsidSurvivesNeitherTimeoutNorDelete() {
        Workspace c = m_agent.createOne();
        QVERIFY(!c.id.isEmpty());
        // Timeout: the tree of a timed-out exec ends, setsid'd descendants included.
        bool sawSleeper = false;
        QJsonObject exitEvent;
        bool done = false;
        ApiClient& client = m_agent.client();
        client.stream(
            "POST", "/v1/workspaces/" + c.id.toUtf8() + "/exec",
            QJsonDocument(QJsonObject{{"argv", QJsonArray{"/bin/sh", "-c",
                                                          "setsid sleep 1000 & echo ready; "
                                                          "sleep 60"}},
                                      {"executionTimeoutMs", 3000}})
                .toJson(),
            [&](const QJsonObject& event) {
                if (event.value("type").toString() == QLatin1String("stdout"))
                    sawSleeper =
                        sawSleeper || waitUntil([&] { return !sleepersOf(c.uid).isEmpty(); }, 2000);
                if (event.value("type").toString() == QLatin1String("exit"))
                    exitEvent = event;
            },
            [&](const ApiResponse&) { done = true; });
        QVERIFY(waitUntil([&] { return done; }, 60000));
        QVERIFY(sawSleeper); // positive control: it ran, under the workspace's uid
        QCOMPARE(exitEvent.value("status").toString(), QStringLiteral("timed_out"));
        QVERIFY(waitUntil([&] { return sleepersOf(c.uid).isEmpty(); }, 10000));

        // Delete: a background process left by a finished exec ends with the workspace.
        const Outcome background =
            sh(client, c.id, QStringLiteral("setsid sleep 1000 </dev/null >/dev/null 2>&1 &"));
        QCOMPARE(background.status(), QStringLiteral("completed"));
        QVERIFY(waitUntil([&] { return !sleepersOf(c.uid).isEmpty(); }, 5000));
        QCOMPARE(client.call("DELETE", "/v1/workspaces/" + c.id.toUtf8()).status, 200);
        QVERIFY(waitUntil([&] { return lighttest::processesOf(c.uid).isEmpty(); }, 10000));
        QVERIFY(!QFileInfo::exists(c.home));
        // A request racing or following the delete never runs: 404 for the agent, 401 for the
        // workspace's own token.
        QCOMPARE(sh(client, c.id, QStringLiteral("true")).httpStatus, 404);
        ApiClient revoked(m_agent.url(), c.token);
        QCOMPARE(sh(revoked, c.id, QStringLiteral("true")).httpStatus, 401);
    }

    void testDeleteDuringAnExecCancelsIt() {
        Workspace c = m_agent.createOne();
        QVERIFY(!c.id.isEmpty());
        QJsonObject exitEvent;
        bool started = false, done = false;
        m_agent.client().stream(
            "POST", "/v1/workspaces/" + c.id.toUtf8() + "/exec",
            QJsonDocument(QJsonObject{{"argv", QJsonArray{"/bin/sh", "-c", "echo go; sleep 60"}}})
                .toJson(),
            [&](const QJsonObject& event) {
                started = started || event.value("type").toString() == QLatin1String("stdout");
                if (event.value("type").toString() == QLatin1String("exit"))
                    exitEvent = event;
            },
            [&](const ApiResponse&) { done = true; });
        QVERIFY(waitUntil([&] { return started; }, 30000)); // positive control: it runs
        QCOMPARE(m_agent.client().call("DELETE", "/v1/workspaces/" + c.id.toUtf8()).status, 200);
        QVERIFY(waitUntil([&] { return done; }, 30000));
        QCOMPARE(exitEvent.value("status").toString(), QStringLiteral("cancelled"));
        QVERIFY(waitUntil([&] { return lighttest::processesOf(c.uid).isEmpty(); }, 10000));
    }

    void testForegroundExecOutlivesItsIdleTimeoutThenIdleIsEvicted() {
        Workspace c = m_agent.createOne({{"idleTimeoutS", 3}});
        QVERIFY(!c.id.isEmpty());
        const Outcome sleep = exec(m_agent.client(), c.id, {{"argv", QJsonArray{"sleep", "20"}}});
        QCOMPARE(sleep.status(), QStringLiteral("completed"));
        QCOMPARE(sleep.exitCode(), 0);
        // Once nothing runs, the idle workspace goes (the eviction this exec was safe from).
        QVERIFY(waitUntil(
            [&] {
                return m_agent.client()
                           .call("GET", "/v1/workspaces?isolation=light")
                           .body.indexOf(c.id.toUtf8()) < 0;
            },
            20000));
        // The home is removed on a worker thread after the workspace left the registry.
        QVERIFY(waitUntil([&] { return !QFileInfo::exists(c.home); }, 10000));
    }

    /// The listing shows each light workspace's idle clock; an exec moves it, the usage walk
    /// (a console refreshing its list) does not keep the workspace alive.
    void testTheListingShowsTheIdleDeadline() {
        Workspace d = m_agent.createOne({{"idleTimeoutS", 4}});
        QVERIFY(!d.id.isEmpty());
        const auto item = [&] {
            for (const QJsonValue& v : m_agent.client()
                                           .call("GET", "/v1/workspaces?isolation=light")
                                           .json()
                                           .value("workspaces")
                                           .toArray())
                if (v["id"].toString() == d.id)
                    return v.toObject();
            return QJsonObject();
        };
        const auto at = [](const QJsonValue& v) {
            return QDateTime::fromString(v.toString(), Qt::ISODateWithMs).toMSecsSinceEpoch();
        };
        QJsonObject listed = item();
        QCOMPARE(listed.value("idleTimeoutS").toInt(), 4);
        const qint64 used = at(listed.value("lastUsedAt"));
        QCOMPARE(at(listed.value("idleDeadlineAt")) - used, 4000);
        QTest::qWait(300);
        QCOMPARE(exec(m_agent.client(), d.id, {{"argv", QJsonArray{"true"}}}).status(),
                 QStringLiteral("completed"));
        listed = item();
        QVERIFY(at(listed.value("lastUsedAt")) > used); // positive control: an exec uses it
        // Asking its usage every 500 ms does not: it is evicted on time all the same.
        const QByteArray usage = "/v1/workspaces/" + d.id.toUtf8() + "/usage";
        const bool evicted = waitUntil(
            [&] {
                m_agent.client().call("GET", usage);
                return item().isEmpty();
            },
            15000);
        QVERIFY2(evicted, "the usage walk kept an idle light workspace alive");
    }

    void testConsecutiveShortExecsNeverLoseTrailingOutput() {
        const QByteArray seq = seqBytes(20000);
        ApiClient a(m_agent.url(), m_a.token);
        for (int i = 0; i < 200; ++i) {
            Outcome o;
            QByteArray expected;
            switch (i % 3) {
            case 0:
                o = exec(a, m_a.id, {{"argv", QJsonArray{"echo", "hi"}}});
                expected = "hi\n";
                break;
            case 1:
                o = exec(a, m_a.id, {{"argv", QJsonArray{"printf", "xyz"}}});
                expected = "xyz";
                break;
            default:
                o = exec(a, m_a.id, {{"argv", QJsonArray{"seq", "1", "20000"}}});
                expected = seq;
                break;
            }
            QVERIFY2(o.status() == QLatin1String("completed"), qPrintable(o.describe()));
            QVERIFY2(o.out == expected, qPrintable(QStringLiteral("exec %1: %2 bytes, want %3")
                                                       .arg(i)
                                                       .arg(o.out.size())
                                                       .arg(expected.size())));
            QCOMPARE(o.exit.value("stdoutBytes").toInteger(), qint64(expected.size()));
            QCOMPARE(o.events.last().value("type").toString(), QStringLiteral("exit"));
        }
    }

    void testBatchBeyondCapacityReportsRejected() {
        ApiClient& client = m_agent.client();
        const int held = client.call("GET", "/v1/health")
                             .json()
                             .value("light")
                             .toObject()
                             .value("workspaces")
                             .toInt();
        QCOMPARE(
            client.call("PUT", "/v1/settings/quotas", {{"maxLightWorkspaces", held + 5}}).status,
            200);
        const ApiResponse r = m_agent.createLight({{"count", 8}});
        QCOMPARE(r.status, 201);
        const QJsonArray made = r.json().value("workspaces").toArray();
        QCOMPARE(made.size(), 5);
        QCOMPARE(r.json().value("rejected").toInt(), 3);
        // The ones that fit are real workspaces.
        const QString first = made.first().toObject().value("id").toString();
        QCOMPARE(exec(client, first, {{"argv", QJsonArray{"true"}}}).status(),
                 QStringLiteral("completed"));
        // Full: a further create is rejected, not an error.
        const ApiResponse full = m_agent.createLight();
        QCOMPARE(full.status, 201);
        QCOMPARE(full.json().value("rejected").toInt(), 1);
        for (const QJsonValue& ws : made)
            QCOMPARE(client
                         .call("DELETE",
                               "/v1/workspaces/" + ws.toObject().value("id").toString().toUtf8())
                         .status,
                     200);
        QCOMPARE(client.call("PUT", "/v1/settings/quotas", {{"maxLightWorkspaces", 4096}}).status,
                 200);
    }

    void testWorkspaceEnvAppliesUnderTheRequestAndIsNeverStored() {
        const QString secret =
            QStringLiteral("envsecret-%1").arg(QDateTime::currentMSecsSinceEpoch());
        Workspace c = m_agent.createOne(
            {{"env", QJsonObject{{"RB_SECRET", secret}, {"RB_OTHER", "workspace"}}}});
        QVERIFY(!c.id.isEmpty());
        const Outcome o =
            sh(m_agent.client(), c.id, QStringLiteral("echo \"$RB_SECRET $RB_OTHER\""),
               {{"env", QJsonObject{{"RB_OTHER", "request"}}}});
        QCOMPARE(o.out, (secret + QStringLiteral(" request\n")).toUtf8()); // positive control
        // Nothing under the state directory (database, WAL, logs) nor the agent's log has it.
        QDirIterator it(m_agent.stateDir(), QDir::Files | QDir::Hidden | QDir::System,
                        QDirIterator::Subdirectories);
        int scanned = 0;
        while (it.hasNext()) {
            QFile file(it.next());
            if (!file.open(QIODevice::ReadOnly))
                continue;
            ++scanned;
            QVERIFY2(!file.readAll().contains(secret.toUtf8()), qPrintable(file.fileName()));
        }
        QVERIFY(scanned > 0);
        QVERIFY(!m_agent.log().contains(secret));
        QCOMPARE(m_agent.client().call("DELETE", "/v1/workspaces/" + c.id.toUtf8()).status, 200);
    }

    void testDeleteAllLightWorkspaces() {
        QVERIFY(m_agent.createLight({{"count", 3}}).status == 201);
        const ApiResponse r = m_agent.client().call("DELETE", "/v1/workspaces?isolation=light");
        QCOMPARE(r.status, 200);
        QVERIFY(r.json().value("deleted").toArray().size() >= 5); // A, B and the three
        QCOMPARE(m_agent.client()
                     .call("GET", "/v1/workspaces?isolation=light")
                     .json()
                     .value("workspaces")
                     .toArray()
                     .size(),
                 0);
        QVERIFY(lighttest::processesOf(m_a.uid).isEmpty());
        const QJsonObject idle =
            m_agent.client().call("GET", "/v1/health").json().value("idle").toObject();
        QVERIFY(idle.value("noWorkspacesForMs").toInteger(-1) >= 0);
    }

    void testUnavailableTierAnswers503AndStrongStillWorks() {
        Agent strict;
        QString error;
        QVERIFY2(strict.start({{"RUNBOX_LIGHT_MIN_LANDLOCK_ABI", "64"},
                               {"RUNBOX_LIGHT_UID_FIRST", "44000"},
                               {"RUNBOX_LIGHT_UID_COUNT", "100"},
                               // a second root agent of this host needs its own sandbox uids
                               {"RUNBOX_STRONG_UID_FIRST", "1879600000"},
                               {"RUNBOX_STRONG_UID_COUNT", "1000"}},
                              &error),
                 qPrintable(error));
        // Positive control: the strong tier creates workspaces as before.
        const ApiResponse strong = strict.client().call("POST", "/v1/workspaces", {});
        QCOMPARE(strong.status, 201);
        const QJsonObject light =
            strict.client().call("GET", "/v1/health").json().value("light").toObject();
        QVERIFY(!light.value("available").toBool());
        QVERIFY(light.value("reason").toString().contains(QLatin1String("64")));
        const ApiResponse refused = strict.createLight();
        QCOMPARE(refused.status, 503);
        QCOMPARE(refused.errorCode(), QStringLiteral("light_unavailable"));
    }
};

QTEST_GUILESS_MAIN(TestLightAgentLifecycle)
#include "test_light_agent_lifecycle.moc"
